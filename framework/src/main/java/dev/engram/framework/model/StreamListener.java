package dev.engram.framework.model;

import dev.engram.framework.ToolCall;

/**
 * Receives a streamed answer as it arrives, on the thread that called {@link ChatModel#stream}. Every
 * method has an empty default, so a listener implements only what it shows.
 *
 * <p>Order: text, reasoning and tool-call fragments in the order the provider sent them (they may
 * interleave, and so may the fragments of parallel calls); then {@link #onToolCall} once per complete
 * call, in call order, before {@code stream} returns. A listener that throws aborts the stream: the
 * exception propagates out of {@code stream}.
 */
public interface StreamListener {
    /** A piece of the assistant's text. */
    default void onText(String delta) {
    }

    /**
     * A piece of the model's reasoning, where the provider streams it (Anthropic thinking, Gemini thought
     * summaries, {@code reasoning_content} of OpenAI-compatible servers). The whole reasoning is also in the
     * {@link ChatResponse} {@code stream} returns ({@link ChatResponse#reasoning()}).
     */
    default void onReasoning(String delta) {
    }

    /**
     * A fragment of tool call {@code index} (0 for the first call of this answer, 1 for the second, ...).
     * The first fragment of a call carries its {@code id} and {@code name}; later ones have them empty.
     * {@code argumentsDelta} is a piece of the arguments' JSON text, cut anywhere (possibly empty).
     */
    default void onToolCallDelta(int index, String id, String name, String argumentsDelta) {
    }

    /** A tool call whose arguments are complete (they may still be malformed JSON: the pipeline will say so). */
    default void onToolCall(ToolCall call) {
    }

    StreamListener NONE = new StreamListener() {
    };
}
