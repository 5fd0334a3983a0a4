package dev.engram.framework.model;

import java.util.Objects;

/**
 * A model's answer.
 *
 * @param message    the assistant message (text, tool calls and the model's reasoning)
 * @param usage      tokens in and out, as the provider reported them (zero when it did not)
 * @param stopReason why the model stopped
 */
public record ChatResponse(ChatMessage.Assistant message, Usage usage, StopReason stopReason) {
    public ChatResponse {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(usage, "usage");
        Objects.requireNonNull(stopReason, "stopReason");
    }

    /** The model's own reasoning, as its provider showed it ({@link Reasoning#NONE} when it showed none). */
    public Reasoning reasoning() {
        return message.reasoning();
    }

    /** Token counts. */
    public record Usage(int inputTokens, int outputTokens) {
        public static final Usage NONE = new Usage(0, 0);
    }

    /** Why generation stopped, across providers. */
    public enum StopReason {
        /** The model finished its turn. */
        END_TURN,
        /** The model wants tool results. */
        TOOL_CALLS,
        /** The output hit the token limit. */
        MAX_TOKENS,
        /** A provider filter stopped it. */
        CONTENT_FILTER,
        /** Anything else. */
        OTHER
    }
}
