package dev.engram.framework;

import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A tool's output together with what the call did. An {@link AiTool} whose calls have an effect the agent loop
 * must know of returns one ({@code AiTool<In, ToolOutput>}); the pipeline gives {@link #value()} to the model (as
 * text if it is a {@code CharSequence}, as JSON otherwise) and copies the effects into the {@link ToolResult}.
 *
 * <pre>{@code
 * return ToolOutput.of("Appended to block 'human'.", ToolEffect.MEMORY_EDITED);
 * return ToolOutput.messageToUser(Map.of("success", true), in.message());
 * }</pre>
 *
 * @param value       what the model reads; never null
 * @param effects     what the call did
 * @param userMessage the text the user reads, present exactly when {@code effects} has {@link ToolEffect#MESSAGE_TO_USER}
 * @param metadata    free-form, JSON-safe facts for the program around the agent, copied into the
 *                    {@link ToolResult#metadata()}; the model never sees them ({@link #withMetadata})
 */
public record ToolOutput(Object value, Set<ToolEffect> effects, Optional<String> userMessage, Map<String, Object> metadata) {
    public ToolOutput {
        Objects.requireNonNull(value, "value must not be null (return \"OK\" for a tool with nothing to say)");
        effects = Set.copyOf(Objects.requireNonNull(effects, "effects must not be null"));
        Objects.requireNonNull(userMessage, "userMessage must not be null");
        if (effects.contains(ToolEffect.MESSAGE_TO_USER) != userMessage.isPresent()) {
            throw new IllegalArgumentException("a tool output has a user message exactly when it has effect MESSAGE_TO_USER; "
                    + "use ToolOutput.messageToUser(value, message)");
        }
        metadata = ToolMetadata.copy(metadata);
    }

    /** An output without metadata. */
    public ToolOutput(Object value, Set<ToolEffect> effects, Optional<String> userMessage) {
        this(value, effects, userMessage, Map.of());
    }

    /**
     * An output with these effects.
     *
     * @throws IllegalArgumentException for {@link ToolEffect#MESSAGE_TO_USER}, which needs its text: use {@link #messageToUser}
     */
    public static ToolOutput of(Object value, ToolEffect... effects) {
        Set<ToolEffect> set = EnumSet.noneOf(ToolEffect.class);
        for (ToolEffect e : effects) {
            set.add(Objects.requireNonNull(e, "effects must not contain null"));
        }
        return new ToolOutput(value, set, Optional.empty());
    }

    /** An output that says the call delivered {@code message} to the user. */
    public static ToolOutput messageToUser(Object value, String message) {
        Objects.requireNonNull(message, "message must not be null");
        return new ToolOutput(value, Set.of(ToolEffect.MESSAGE_TO_USER), Optional.of(message));
    }

    /** This output with {@code value} in place of its value (the same effects). */
    ToolOutput withValue(Object text) {
        return new ToolOutput(text, effects, userMessage, metadata);
    }

    /**
     * This output with one more metadata entry (replacing one of the same key):
     * {@code ToolOutput.of(text).withMetadata("exit_code", 0)}.
     *
     * @throws IllegalArgumentException if the key is blank or the value is not JSON-safe (a string, a finite number, a
     *                                  boolean, or a list or map of them)
     */
    public ToolOutput withMetadata(String key, Object value) {
        return new ToolOutput(this.value, effects, userMessage, ToolMetadata.with(metadata, key, value));
    }
}
