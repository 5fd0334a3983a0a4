package dev.engram.framework.model;

import dev.engram.framework.ToolDefinition;
import java.util.List;
import java.util.Objects;

/**
 * What is sent to a model: the conversation, the tools it may call (as the registry defines them),
 * and the options.
 */
public record ChatRequest(List<ChatMessage> messages, List<ToolDefinition> tools, ChatOptions options) {
    public ChatRequest {
        messages = List.copyOf(Objects.requireNonNull(messages, "messages"));
        if (messages.isEmpty()) {
            throw new IllegalArgumentException("a chat request needs at least one message");
        }
        tools = List.copyOf(Objects.requireNonNull(tools, "tools"));
        Objects.requireNonNull(options, "options");
    }

    public static ChatRequest of(List<ChatMessage> messages) {
        return new ChatRequest(messages, List.of(), ChatOptions.defaults());
    }

    public static ChatRequest of(List<ChatMessage> messages, List<ToolDefinition> tools) {
        return new ChatRequest(messages, tools, ChatOptions.defaults());
    }

    public ChatRequest withOptions(ChatOptions newOptions) {
        return new ChatRequest(messages, tools, newOptions);
    }
}
