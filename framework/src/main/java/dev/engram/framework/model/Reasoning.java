package dev.engram.framework.model;

import java.util.List;
import java.util.Objects;

/**
 * What a model thought before it answered, where its provider shows it: Anthropic's {@code thinking} and
 * {@code redacted_thinking} blocks, Gemini's thought parts ({@code "thought": true}), the {@code reasoning_content} or
 * {@code reasoning} of OpenAI-compatible servers. It is not the text beside tool calls (that is the assistant's text).
 *
 * @param text      the reasoning the provider showed; empty when it showed none
 * @param signature the provider's signature over {@code text}, which it needs back with the text on a later request
 *                  (Anthropic, when thinking is on and tools are used); empty when there is none
 * @param redacted  reasoning the provider gave only in encrypted form (Anthropic's {@code redacted_thinking} data), in
 *                  order, to be sent back as it came; empty for most answers
 */
public record Reasoning(String text, String signature, List<String> redacted) {
    /** No reasoning. */
    public static final Reasoning NONE = new Reasoning("", "", List.of());

    public Reasoning {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(signature, "signature");
        redacted = List.copyOf(redacted);
    }

    /** Reasoning text without a signature. */
    public static Reasoning of(String text) {
        return new Reasoning(text, "", List.of());
    }

    /** Whether there is nothing: no text, no signature, nothing redacted. */
    public boolean isEmpty() {
        return text.isEmpty() && signature.isEmpty() && redacted.isEmpty();
    }
}
