package dev.engram.memory;

import java.util.List;

/**
 * The model's own reasoning behind an assistant message, as its provider showed it (Anthropic's thinking, Gemini's
 * thought summaries, the {@code reasoning_content} of OpenAI-compatible servers), kept with the message. It is not the
 * message's text beside its tool calls.
 *
 * @param text      the reasoning the provider showed; empty when it showed none
 * @param signature the provider's signature over {@code text}, which it needs back on a later request; empty when none
 * @param redacted  reasoning the provider gave only in encrypted form, in order, kept to be sent back as it came
 */
public record MessageReasoning(String text, String signature, List<String> redacted) {
    /** No reasoning. */
    public static final MessageReasoning NONE = new MessageReasoning("", "", List.of());

    public MessageReasoning {
        Checks.text(text, "reasoning text");
        Checks.text(signature, "reasoning signature");
        redacted = List.copyOf(Checks.noNulls(redacted, "redacted reasoning"));
    }

    /** Reasoning text without a signature. */
    public static MessageReasoning of(String text) {
        return new MessageReasoning(text, "", List.of());
    }

    /** Whether there is nothing: no text, no signature, nothing redacted. */
    public boolean isEmpty() {
        return text.isEmpty() && signature.isEmpty() && redacted.isEmpty();
    }

    /** Whether the provider gave reasoning only in encrypted form (nothing to read). */
    public boolean hiddenOnly() {
        return text.isEmpty() && !redacted.isEmpty();
    }
}
