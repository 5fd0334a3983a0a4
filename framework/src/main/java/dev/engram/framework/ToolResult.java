package dev.engram.framework;

import java.time.Duration;
import java.util.Objects;

/**
 * What the pipeline returns for every call, success or not. The pipeline never throws: every problem
 * is described here, in {@link #content()}, in words meant for the model.
 *
 * @param callId        the id of the {@link ToolCall} this answers
 * @param toolName      the tool name the model asked for
 * @param content       the output (or error message) given to the model, already truncated
 * @param status        how the call ended
 * @param duration      wall time spent in the pipeline for this call
 * @param truncated     whether {@code content} was cut to the output budget
 * @param originalBytes size in UTF-8 bytes of the output before truncation
 */
public record ToolResult(
        String callId,
        String toolName,
        String content,
        ToolStatus status,
        Duration duration,
        boolean truncated,
        long originalBytes) {

    public ToolResult {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(duration, "duration");
    }

    /** True for every status but {@link ToolStatus#SUCCESS}. */
    public boolean isError() {
        return status != ToolStatus.SUCCESS;
    }
}
