package dev.engram.framework;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the pipeline returns for every call, success or not. The pipeline never throws: every problem
 * is described here, in {@link #content()}, in words meant for the model. How the call ended is
 * {@link #status()}, and what it did {@link #effects()}: nobody needs to read either from the content
 * (a tool may return the text "Error: ..." as data and still have succeeded).
 *
 * @param callId        the id of the {@link ToolCall} this answers
 * @param toolName      the tool name the model asked for
 * @param content       the output (or error message) given to the model, already truncated
 * @param status        how the call ended
 * @param duration      wall time spent in the pipeline for this call
 * @param truncated     whether {@code content} was cut to the output budget
 * @param originalBytes size in UTF-8 bytes of the output before truncation
 * @param effects       what the call did, as the tool said in its {@link ToolOutput}; empty for a call that did not run
 * @param userMessage   what the user reads, present exactly when {@code effects} has {@link ToolEffect#MESSAGE_TO_USER}
 */
public record ToolResult(
        String callId,
        String toolName,
        String content,
        ToolStatus status,
        Duration duration,
        boolean truncated,
        long originalBytes,
        Set<ToolEffect> effects,
        Optional<String> userMessage) {

    public ToolResult {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(duration, "duration");
        effects = Set.copyOf(Objects.requireNonNull(effects, "effects"));
        Objects.requireNonNull(userMessage, "userMessage");
        if (effects.contains(ToolEffect.MESSAGE_TO_USER) != userMessage.isPresent()) {
            throw new IllegalArgumentException("a tool result has a user message exactly when it has effect MESSAGE_TO_USER");
        }
    }

    /**
     * A result of a call that did nothing, such as one a caller refused with {@link ToolStatus#REFUSED}.
     *
     * @param content what the model is told
     */
    public static ToolResult withoutEffects(ToolCall call, ToolStatus status, String content) {
        return new ToolResult(call.id(), call.name(), content, status, Duration.ZERO, false, 0, Set.of(), Optional.empty());
    }

    /** True for every status but {@link ToolStatus#SUCCESS}. */
    public boolean isError() {
        return status != ToolStatus.SUCCESS;
    }

    /** Whether the call had this effect. */
    public boolean has(ToolEffect effect) {
        return effects.contains(effect);
    }

    /**
     * This result turned into an error of {@code status} with {@code content} for the model (a caller's rule
     * rejected its output). Its effects stay: what the call did, it did.
     */
    public ToolResult asError(ToolStatus status, String content) {
        return new ToolResult(callId, toolName, content, status, duration, truncated, originalBytes, effects, userMessage);
    }
}
