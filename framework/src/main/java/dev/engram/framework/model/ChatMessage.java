package dev.engram.framework.model;

import dev.engram.framework.ToolCall;
import java.util.List;
import java.util.Objects;

/** One message of a conversation with a model: a closed set of four kinds. */
public sealed interface ChatMessage {
    /** Instructions for the model; adapters move it where each provider wants it. */
    record System(String text) implements ChatMessage {
        public System {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * What the user said, and the images the user showed (after the text, in order).
     *
     * @param text   the text; may be empty when there are images
     * @param images the images; empty for a text-only message. A model that cannot see refuses them
     *               ({@link ChatModel#supportsImages()})
     */
    record User(String text, List<Image> images) implements ChatMessage {
        public User {
            Objects.requireNonNull(text, "text");
            images = List.copyOf(images);
        }

        /** A text-only message. */
        public User(String text) {
            this(text, List.of());
        }
    }

    /**
     * What the model answered: text, tool calls, or both, and the reasoning its provider showed.
     *
     * @param text      the text (beside tool calls, what the model said before it acted); may be empty
     * @param toolCalls the tool calls, in order
     * @param reasoning the model's own reasoning ({@link Reasoning#NONE} when the provider showed none); an adapter
     *                  sends it back only where its provider needs it (Anthropic's signed thinking, when thinking is on)
     */
    record Assistant(String text, List<ToolCall> toolCalls, Reasoning reasoning) implements ChatMessage {
        public Assistant {
            Objects.requireNonNull(text, "text");
            toolCalls = List.copyOf(toolCalls);
            Objects.requireNonNull(reasoning, "reasoning");
        }

        /** An answer without reasoning. */
        public Assistant(String text, List<ToolCall> toolCalls) {
            this(text, toolCalls, Reasoning.NONE);
        }

        public static Assistant text(String text) {
            return new Assistant(text, List.of());
        }
    }

    /**
     * A tool's result, answering the assistant's call {@code toolCallId}.
     *
     * @param toolCallId the id of the call it answers
     * @param toolName   the tool (Gemini needs it)
     * @param content    the result text
     * @param isError    whether the call failed
     */
    record ToolResult(String toolCallId, String toolName, String content, boolean isError) implements ChatMessage {
        public ToolResult {
            Objects.requireNonNull(toolCallId, "toolCallId");
            Objects.requireNonNull(toolName, "toolName");
            Objects.requireNonNull(content, "content");
        }
    }
}
