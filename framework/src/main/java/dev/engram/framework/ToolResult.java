package dev.engram.framework;

import java.time.Duration;
import java.util.Map;
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
 * @param metadata      free-form facts about the call for the program around the agent (listeners, hooks, a server's
 *                      stream), never shown to the model: what the tool put in its {@link ToolOutput} and what
 *                      {@link ToolHook}s added. JSON-safe values only (strings, finite numbers, booleans, and lists
 *                      and maps of them); copied, unmodifiable, in the order given. Not stored with the message.
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
        Optional<String> userMessage,
        Map<String, Object> metadata) {

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
        metadata = ToolMetadata.copy(metadata);
    }

    /** A result without metadata (the form every result had before metadata existed). */
    public ToolResult(String callId, String toolName, String content, ToolStatus status, Duration duration, boolean truncated,
            long originalBytes, Set<ToolEffect> effects, Optional<String> userMessage) {
        this(callId, toolName, content, status, duration, truncated, originalBytes, effects, userMessage, Map.of());
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
        return new ToolResult(callId, toolName, content, status, duration, truncated, originalBytes, effects, userMessage,
                metadata);
    }

    /**
     * This result with {@code content} in place of its content (status, effects and metadata kept): what a
     * {@link ToolHook} that rewrites a result returns. The pipeline cuts rewritten content to its output budget.
     */
    public ToolResult withContent(String content) {
        Objects.requireNonNull(content, "content must not be null");
        return new ToolResult(callId, toolName, content, status, duration, truncated, originalBytes, effects, userMessage,
                metadata);
    }

    /**
     * This result with one more metadata entry (replacing an entry of the same key).
     *
     * @throws IllegalArgumentException if the key is blank or the value is not JSON-safe
     */
    public ToolResult withMetadata(String key, Object value) {
        return new ToolResult(callId, toolName, content, status, duration, truncated, originalBytes, effects, userMessage,
                ToolMetadata.with(metadata, key, value));
    }
}
