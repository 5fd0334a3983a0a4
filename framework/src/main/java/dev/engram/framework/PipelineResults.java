package dev.engram.framework;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * The results the tool pipeline writes itself (refusals, errors, cancellations), cut to its output budget; one per
 * executor, shared by its stages.
 */
final class PipelineResults {
    private final int outputBudgetBytes;

    PipelineResults(int outputBudgetBytes) {
        this.outputBudgetBytes = outputBudgetBytes;
    }

    /** The UTF-8 byte budget of a result's content. */
    int outputBudgetBytes() {
        return outputBudgetBytes;
    }

    /** A result without effects, its content cut to the budget, timed from {@code start}. */
    ToolResult finish(ToolCall call, long start, ToolStatus status, String content, Truncation truncation) {
        Truncator.Cut cut = Truncator.cut(content, outputBudgetBytes, truncation);
        return new ToolResult(call.id(), call.name(), cut.content(), status,
                Duration.ofNanos(System.nanoTime() - start), cut.truncated(), cut.originalBytes(), Set.of(),
                Optional.empty());
    }

    /** The call was cancelled while it waited or ran. */
    ToolResult cancelled(ToolCall call, long start) {
        return finish(call, start, ToolStatus.CANCELLED, "Tool call '" + call.name() + "' was cancelled.",
                Truncation.KEEP_HEAD);
    }

    /** The call was cancelled before its result came, untimed. */
    static ToolResult cancelled(ToolCall call) {
        return ToolResult.withoutEffects(call, ToolStatus.CANCELLED, "Tool call '" + call.name() + "' was cancelled.");
    }

    /** The status of a result a tool's own exception becomes. */
    static ToolStatus statusOf(ToolException e) {
        return e instanceof InvalidArgumentsException ? ToolStatus.INVALID_ARGUMENTS : ToolStatus.TOOL_ERROR;
    }

    /** What the model reads when something failed that it cannot mend; the details go to the log. */
    static String internalError(String name) {
        return "Tool '" + name + "' failed with an internal error; the details were logged. "
                + "Try a different approach, or tell the user the tool is not working.";
    }
}
