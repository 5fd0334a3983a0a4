package dev.engram.framework;

/** How a tool call ended. Everything but {@link #SUCCESS} is an error result. */
public enum ToolStatus {
    /** The tool ran and returned output. */
    SUCCESS,
    /** No tool of that name is registered. */
    UNKNOWN_TOOL,
    /** The agent's {@link ToolPolicy} does not allow the tool. */
    DENIED_BY_POLICY,
    /** The arguments were malformed or did not match the tool's schema; the content says how to fix them. */
    INVALID_ARGUMENTS,
    /** Approval was required and was denied, timed out, or could not be asked for. Nothing ran. */
    APPROVAL_DENIED,
    /**
     * The caller refused to run the call before the pipeline saw it (an agent's tool rules, or its loop breaker after
     * the same call came too often); the content says why. Nothing ran.
     */
    REFUSED,
    /** The tool ran past its timeout and was interrupted. */
    TIMED_OUT,
    /** The call was cancelled through the context's {@link CancellationToken} or by interrupting the caller. */
    CANCELLED,
    /** The tool reported a failure for the model through {@link ToolException}. */
    TOOL_ERROR,
    /** The tool failed unexpectedly; details were logged, the model got a generic message. */
    FAILED
}
