package dev.engram.memory;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * An image a user message carries, kept with the message: its bytes and media type ({@link Inline}), or only where it
 * is ({@link Url}, never fetched by the store). Text-only messages carry none.
 */
public sealed interface MessageImage {
    /** The media types a store accepts, in the order error messages list them. */
    List<String> MEDIA_TYPES = List.of("image/png", "image/jpeg", "image/gif", "image/webp");

    /** An image {@code data} of type {@code mediaType}, one of {@link #MEDIA_TYPES}. */
    static MessageImage inline(String mediaType, byte[] data) {
        return new Inline(mediaType, data);
    }

    /** An image at {@code url}, an absolute {@code http(s)} address. */
    static MessageImage url(String url) {
        return new Url(url);
    }

    /** Its size in bytes as the store counts it against {@link MemoryLimits#maxImageBytes()}: the data, or the URL. */
    int size();

    /**
     * An image's bytes.
     *
     * @param mediaType one of {@link #MEDIA_TYPES}
     * @param data      the encoded image; not empty (a copy is kept)
     */
    record Inline(String mediaType, byte[] data) implements MessageImage {
        public Inline {
            Checks.notNull(mediaType, "media type");
            if (!Set.copyOf(MEDIA_TYPES).contains(mediaType)) {
                throw new IllegalArgumentException("image media type '" + mediaType + "' is not accepted; use one of "
                        + String.join(", ", MEDIA_TYPES));
            }
            Checks.notNull(data, "image data");
            if (data.length == 0) {
                throw new IllegalArgumentException("an image needs data; this one is empty");
            }
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public int size() {
            return data.length;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Inline i && i.mediaType.equals(mediaType) && Arrays.equals(i.data, data);
        }

        @Override
        public int hashCode() {
            return mediaType.hashCode() * 31 + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "Inline[" + mediaType + ", " + data.length + " bytes]";
        }
    }

    /**
     * An image by address; the store keeps the address only.
     *
     * @param url an absolute {@code http} or {@code https} URL
     */
    record Url(String url) implements MessageImage {
        public Url {
            Checks.notNull(url, "image url");
            URI uri;
            try {
                uri = new URI(url);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("image url '" + url + "' is not a valid URL: " + e.getReason());
            }
            if (!("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme())) || uri.getHost() == null) {
                throw new IllegalArgumentException("image url '" + url + "' is not an absolute http(s) URL");
            }
        }

        @Override
        public int size() {
            return url.length();
        }
    }
}
