package dev.engram.framework.model;

import java.net.URI;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * An image a user message shows the model ({@link ChatMessage.User#images()}): its bytes and media type
 * ({@link Inline}), sent in the provider's own format, or an address ({@link Url}) that only providers which fetch
 * images themselves take. A model says which it accepts ({@link ChatModel#supportsImages()},
 * {@link ChatModel#supportsImageUrls()}).
 */
public sealed interface Image {
    /** The media types every provider adapter sends. */
    List<String> MEDIA_TYPES = List.of("image/png", "image/jpeg", "image/gif", "image/webp");

    /** An image of {@code mediaType} (one of {@link #MEDIA_TYPES}). */
    static Image inline(String mediaType, byte[] data) {
        return new Inline(mediaType, data);
    }

    /** An image at an {@code http(s)} address. */
    static Image url(URI url) {
        return new Url(url);
    }

    /**
     * An image's bytes.
     *
     * @param mediaType one of {@link #MEDIA_TYPES}
     * @param data      the encoded image, not empty (a copy is kept)
     */
    record Inline(String mediaType, byte[] data) implements Image {
        public Inline {
            Objects.requireNonNull(mediaType, "mediaType");
            if (!MEDIA_TYPES.contains(mediaType)) {
                throw new IllegalArgumentException("image media type '" + mediaType + "' is not one of " + MEDIA_TYPES);
            }
            Objects.requireNonNull(data, "data");
            if (data.length == 0) {
                throw new IllegalArgumentException("an image needs data; this one is empty");
            }
            data = data.clone();
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        /** The data in standard base64, as every provider's JSON carries it. */
        public String base64() {
            return Base64.getEncoder().encodeToString(data);
        }

        /** A {@code data:} URL of the image (OpenAI's {@code image_url} takes one). */
        public String dataUrl() {
            return "data:" + mediaType + ";base64," + base64();
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
     * An image by address, which the provider fetches.
     *
     * @param url an absolute {@code http} or {@code https} URL
     */
    record Url(URI url) implements Image {
        public Url {
            Objects.requireNonNull(url, "url");
            if (!("http".equalsIgnoreCase(url.getScheme()) || "https".equalsIgnoreCase(url.getScheme())) || url.getHost() == null) {
                throw new IllegalArgumentException("image url '" + url + "' is not an absolute http(s) URL");
            }
        }
    }
}
