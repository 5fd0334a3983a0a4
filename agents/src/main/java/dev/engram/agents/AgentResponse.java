package dev.engram.agents;

import dev.engram.framework.ToolResult;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What an agent did with a message.
 *
 * @param reply        what it said: the {@code send_message} text (several joined by a blank line), or
 *                     the model's final text when it ended with no tool call; empty if it said nothing
 * @param stopReason   why it stopped
 * @param steps        how many model calls it made
 * @param toolResults  every tool call's result, in order
 * @param inputTokens  prompt tokens the model reported, summed over the steps
 * @param outputTokens completion tokens the model reported, summed over the steps
 */
public record AgentResponse(Optional<String> reply, AgentStopReason stopReason, int steps, List<ToolResult> toolResults,
        long inputTokens, long outputTokens) {
    public AgentResponse {
        Objects.requireNonNull(reply, "reply");
        Objects.requireNonNull(stopReason, "stopReason");
        toolResults = List.copyOf(toolResults);
    }
}
