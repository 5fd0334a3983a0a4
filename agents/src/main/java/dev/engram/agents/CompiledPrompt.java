package dev.engram.agents;

import dev.engram.framework.ToolDefinition;
import dev.engram.framework.model.ChatMessage;
import java.util.List;

/**
 * The prompt an agent's next step sends to its model.
 *
 * @param messages            the system message (instructions, memory blocks, statistics, summary,
 *                            any memory-pressure warning) followed by the in-context messages
 * @param tools               the tool definitions, each with {@code request_heartbeat}
 * @param tokens              the prompt's size in tokens, by the agent's {@link TokenCounter}
 * @param contextWindowTokens the agent's context window
 * @param memoryPressure      whether the memory-pressure warning is in the prompt
 */
public record CompiledPrompt(List<ChatMessage> messages, List<ToolDefinition> tools, int tokens,
        int contextWindowTokens, boolean memoryPressure) {
    public CompiledPrompt {
        messages = List.copyOf(messages);
        tools = List.copyOf(tools);
    }

    /** The system message's text. */
    public String systemText() {
        return ((ChatMessage.System) messages.getFirst()).text();
    }
}
