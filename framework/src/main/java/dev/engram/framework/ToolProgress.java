package dev.engram.framework;

/**
 * Where a long-running tool reports output while it still runs (a build's log lines, a download's progress),
 * before its final result. What a tool reports here reaches the people watching the call (stream listeners, a
 * server's stream, a terminal), never the model: the model gets only the final, truncated result.
 *
 * <p>Get it from {@link ToolContext#progress()}; it is never absent (a context built without one reports to
 * {@link #NONE}). Implementations must be thread-safe and must not block the tool for long: a tool may report
 * from the thread that reads its child process's output.
 */
@FunctionalInterface
public interface ToolProgress {
    /** Reports nowhere. */
    ToolProgress NONE = chunk -> {
    };

    /**
     * Reports a piece of output as it happens.
     *
     * @param chunk text produced since the last report (possibly part of a line); empty chunks may be ignored
     */
    void report(String chunk);
}
