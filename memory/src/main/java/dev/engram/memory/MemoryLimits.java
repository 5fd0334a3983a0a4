package dev.engram.memory;

/**
 * The largest texts a {@link MemoryStore} accepts: a note, an archival entry, a conversation message or
 * an agent definition longer than {@code maxTextChars} is refused with an {@link IllegalArgumentException}
 * that says so, and nothing is stored. Blocks have their own per-block limit, which may not be larger than
 * {@code maxTextChars} either: a block created (by the API, a tool, an import or the command line) or
 * changed with a larger limit is refused with a {@link LimitExceededException} that names the maximum.
 *
 * @param maxTextChars the most characters (UTF-16 units) of one text; default 1,000,000
 */
public record MemoryLimits(int maxTextChars) {
    /** The default: a million characters, about a 300-page book. */
    public static final int DEFAULT_MAX_TEXT_CHARS = 1_000_000;

    public MemoryLimits {
        if (maxTextChars < 1) {
            throw new IllegalArgumentException("the largest text must be at least 1 character, got " + maxTextChars);
        }
    }

    /** One million characters per text. */
    public static MemoryLimits defaults() {
        return new MemoryLimits(DEFAULT_MAX_TEXT_CHARS);
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
