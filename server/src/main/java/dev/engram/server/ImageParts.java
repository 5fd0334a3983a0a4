package dev.engram.server;

import dev.engram.memory.MessageImage;
import io.helidon.http.Status;
import java.util.Base64;
import java.util.List;

/**
 * Letta's image content parts of a user message ({@code {"type": "image", "source": {"type": "base64", "media_type":
 * ..., "data": ...}}} or {@code {"source": {"type": "url", "url": ...}}}) decoded into the images the message stores,
 * within the server's {@link Limits}: an image too large is a 413 naming the limit; too many images, a media type
 * outside png, jpeg, gif and webp, base64 that does not decode or a malformed URL are a 422 naming the part. Nothing is
 * stored on any refusal: decoding happens before the turn starts.
 */
final class ImageParts {
    private ImageParts() {
    }

    /**
     * How many images one message may carry and how large each may be.
     *
     * @param maxBytes      the most bytes of one decoded image (default {@value #DEFAULT_MAX_BYTES}, 5 MiB)
     * @param maxPerMessage the most images in one message (default {@value #DEFAULT_MAX_PER_MESSAGE})
     */
    record Limits(int maxBytes, int maxPerMessage) {
        static final int DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
        static final int DEFAULT_MAX_PER_MESSAGE = 10;

        Limits {
            if (maxBytes < 1) {
                throw new IllegalArgumentException("the largest image must be at least 1 byte, got " + maxBytes);
            }
            if (maxPerMessage < 0) {
                throw new IllegalArgumentException("the most images per message must not be negative, got " + maxPerMessage);
            }
        }

        static Limits defaults() {
            return new Limits(DEFAULT_MAX_BYTES, DEFAULT_MAX_PER_MESSAGE);
        }
    }

    /** The image of one content part of type {@code image}; {@code count} is how many the message had before it. */
    static MessageImage decode(Body part, Limits limits, int count) {
        if (count >= limits.maxPerMessage()) {
            throw part.problem("too_long", "A message may carry at most " + limits.maxPerMessage() + " images on this "
                    + "server; send the others in another message", "type");
        }
        Body source = Body.of(part.object("source").orElseThrow(() -> part.problem("missing", "Field required", "source")),
                part.location("source"));
        String type = source.requiredString("type");
        return switch (type) {
            case "base64" -> base64(source, limits, count);
            case "url" -> {
                try {
                    yield MessageImage.url(source.requiredString("url"));
                } catch (IllegalArgumentException e) {
                    throw source.problem("url_parsing", "Input should be an absolute http(s) URL: " + e.getMessage(), "url");
                }
            }
            case "letta" -> throw source.problem("literal_error", "Engram keeps no image files to refer to by file_id; send "
                    + "the image as base64 or by url", "type");
            default -> throw source.problem("union_tag_invalid", "An image source is 'base64' or 'url', not '" + type + "'",
                    "type");
        };
    }

    private static MessageImage base64(Body source, Limits limits, int count) {
        String mediaType = source.requiredString("media_type");
        if (!MessageImage.MEDIA_TYPES.contains(mediaType)) {
            throw source.problem("literal_error", "Image media type '" + mediaType + "' is not accepted; use one of "
                    + String.join(", ", MessageImage.MEDIA_TYPES), "media_type");
        }
        String data = source.requiredString("data");
        // Every 4 characters of base64 hold 3 bytes: an image surely over the limit is refused before it is decoded.
        if ((long) data.length() / 4 * 3 - 2 > limits.maxBytes()) {
            throw tooLarge(count, "about " + (long) data.length() / 4 * 3, limits);
        }
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(data.replaceAll("\\s", ""));
        } catch (IllegalArgumentException e) {
            throw source.problem("value_error", "The image data is not valid base64 (" + e.getMessage() + ")", "data");
        }
        if (bytes.length > limits.maxBytes()) {
            throw tooLarge(count, String.valueOf(bytes.length), limits);
        }
        if (bytes.length == 0) {
            throw source.problem("value_error", "The image data is empty", "data");
        }
        return MessageImage.inline(mediaType, bytes);
    }

    private static ApiException tooLarge(int count, String size, Limits limits) {
        return ApiException.of(Status.REQUEST_ENTITY_TOO_LARGE_413, "Image " + (count + 1) + " of the message is " + size
                + " bytes; this server takes images of at most " + limits.maxBytes() + " bytes (" + limits.maxBytes() / 1024
                + " KiB). Send a smaller image.");
    }

    /** The images of a message that only a text could be sent with (a scheduled message): none, else a 422. */
    static void refuse(Body body, List<MessageImage> images, String field, String what) {
        if (!images.isEmpty()) {
            throw body.problem("value_error", what + " carry text only, not images", field);
        }
    }
}
