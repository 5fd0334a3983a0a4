package dev.engram.framework;

/**
 * Where a {@link ToolExecutor} sends the progress every call reports ({@link ToolContext#progress()}), tagged with the
 * call it comes from. Set it with {@link ToolContext.Builder#progressListener}; the executor gives each call its own
 * {@link ToolProgress}, which coalesces tiny reports so that a chatty tool cannot flood the listener (at most one
 * report per call per interval, each at most {@link #MAX_CHUNK_CHARS} characters: when a tool prints more than that
 * between two reports, the report keeps the end and says how much was skipped). A call's last report comes before
 * its result is returned; reports after that are dropped.
 *
 * <p>Implementations must be thread-safe: reports come from the threads of the calls, and calls of read-only tools
 * may run at the same time. A listener that throws loses that report, never the call.
 */
@FunctionalInterface
public interface ToolProgressListener {
    /** The most characters one report carries. */
    int MAX_CHUNK_CHARS = 8 * 1024;

    /**
     * Output {@code call} produced since its previous report.
     *
     * @param call  the call, as the model made it (its id tags the report)
     * @param chunk text since the last report (possibly parts of lines); never empty
     */
    void onProgress(ToolCall call, String chunk);
}
