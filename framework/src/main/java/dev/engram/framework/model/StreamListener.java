package dev.engram.framework.model;

import dev.engram.framework.ToolCall;

/** Receives a streamed answer as it arrives. Called on the thread that called {@link ChatModel#stream}. */
public interface StreamListener {
    /** A piece of the assistant's text. */
    default void onText(String delta) {
    }

    /** A tool call whose arguments are complete (they may still be malformed JSON: the pipeline will say so). */
    default void onToolCall(ToolCall call) {
    }

    StreamListener NONE = new StreamListener() {
    };
}
