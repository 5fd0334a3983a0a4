package dev.engram.memory;

/**
 * How many files an agent keeps open at once and how many characters of each open file its prompt shows (Letta's
 * {@code max_files_open} and {@code per_file_view_window_char_limit}), chosen from its context window as Letta chooses
 * them when an agent does not set them.
 *
 * @param maxFilesOpen    the most files open at once; opening one more closes the least recently used
 * @param viewWindowChars the most characters of one open file in the prompt
 */
public record FileLimits(int maxFilesOpen, int viewWindowChars) {
    /** The most files Letta lets an agent keep open. */
    public static final int MAX_FILES_OPEN = 1_000;
    /** The most characters of one open file a prompt may show: a million, far past any model's context window's share. */
    public static final int MAX_VIEW_WINDOW_CHARS = 1_000_000;

    /**
     * @throws IllegalArgumentException naming the field and its bounds, for a number of open files outside 1 to
     *                                  {@link #MAX_FILES_OPEN} or a window outside 1 to {@link #MAX_VIEW_WINDOW_CHARS}
     */
    public FileLimits {
        if (maxFilesOpen < 1 || maxFilesOpen > MAX_FILES_OPEN) {
            throw new IllegalArgumentException("max_files_open must be between 1 and " + MAX_FILES_OPEN + ", got " + maxFilesOpen);
        }
        if (viewWindowChars < 1 || viewWindowChars > MAX_VIEW_WINDOW_CHARS) {
            throw new IllegalArgumentException("per_file_view_window_char_limit must be between 1 and " + MAX_VIEW_WINDOW_CHARS
                    + " characters, got " + viewWindowChars);
        }
    }

    /** Letta's defaults for a model of that context window, in tokens (about four characters each). */
    public static FileLimits forContextWindow(int tokens) {
        if (tokens <= 0) {
            return new FileLimits(5, 50_000);
        } else if (tokens <= 8_000) {
            return new FileLimits(3, 5_000);
        } else if (tokens <= 32_000) {
            return new FileLimits(5, 15_000);
        } else if (tokens <= 128_000) {
            return new FileLimits(10, 25_000);
        } else if (tokens <= 200_000) {
            return new FileLimits(10, 40_000);
        }
        return new FileLimits(15, 40_000);
    }
}
