package dev.engram.memory;

import java.util.List;

/**
 * The largest texts a {@link MemoryStore} accepts: a note, an archival entry, a conversation message or
 * an agent definition longer than {@code maxTextChars} is refused with an {@link IllegalArgumentException}
 * that says so, and nothing is stored. Blocks have their own per-block limit, which may not be larger than
 * {@code maxTextChars} either: a block created (by the API, a tool, an import or the command line) or
 * changed with a larger limit is refused with a {@link LimitExceededException} that names the maximum.
 *
 * <p>An image a message carries ({@link MessageImage}) larger than {@code maxImageBytes} is refused the same way.
 *
 * @param maxTextChars  the most characters (UTF-16 units) of one text; default 1,000,000
 * @param maxImageBytes the most bytes of one image a message carries (of its URL, for an image by address); default
 *                      20 MiB, the most any provider Engram speaks to takes in one request
 */
public record MemoryLimits(int maxTextChars, int maxImageBytes) {
    /** The default: a million characters, about a 300-page book. */
    public static final int DEFAULT_MAX_TEXT_CHARS = 1_000_000;
    /** The default largest image: 20 MiB. */
    public static final int DEFAULT_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

    public MemoryLimits {
        if (maxTextChars < 1) {
            throw new IllegalArgumentException("the largest text must be at least 1 character, got " + maxTextChars);
        }
        if (maxImageBytes < 1) {
            throw new IllegalArgumentException("the largest image must be at least 1 byte, got " + maxImageBytes);
        }
    }

    /** Limits of {@code maxTextChars} per text and the default largest image. */
    public MemoryLimits(int maxTextChars) {
        this(maxTextChars, DEFAULT_MAX_IMAGE_BYTES);
    }

    /** One million characters per text, 20 MiB per image. */
    public static MemoryLimits defaults() {
        return new MemoryLimits(DEFAULT_MAX_TEXT_CHARS, DEFAULT_MAX_IMAGE_BYTES);
    }

    /** Refuses an image larger than {@link #maxImageBytes()}, naming its position among {@code images}. */
    void checkImages(List<MessageImage> images) {
        for (int i = 0; i < images.size(); i++) {
            if (images.get(i).size() > maxImageBytes) {
                throw new IllegalArgumentException("image " + (i + 1) + " of the message is " + images.get(i).size()
                        + " bytes; this store accepts at most " + maxImageBytes + " bytes per image (MemoryLimits). "
                        + "Send a smaller image.");
            }
        }
    }

    /** Refuses a block limit above {@link #maxTextChars()}. */
    void checkBlockLimit(String label, int limit) {
        if (limit > maxTextChars) {
            throw LimitExceededException.blockLimit(label, limit, maxTextChars);
        }
    }

    /** Refuses {@code text} if it is longer than the limit. */
    void check(String text, String what) {
        if (text != null && text.length() > maxTextChars) {
            throw new IllegalArgumentException(what + " is " + text.length() + " characters long; this store accepts at most "
                    + maxTextChars + " (MemoryLimits). Split it, or store a summary and the source's location.");
        }
    }
}
