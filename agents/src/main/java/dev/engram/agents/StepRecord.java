package dev.engram.agents;

import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.model.ChatMessage;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.Scope;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the loop notes of one step while it runs, for {@link AgentEvent.StepTaken}: when it began, what the model was
 * asked (a compact reference: the ids of the stored messages in the prompt, the tools offered, the prompt's size) and
 * what it answered, the time the model took and the tokens it reported. One per turn, reset at each step.
 */
final class StepRecord {
    private final Clock clock;
    private Instant startedAt;
    private List<Long> promptIds = List.of();
    private String request = "{}";
    private String response = "{}";
    private long modelNanos;
    private int inputTokens;
    private int outputTokens;

    StepRecord(Clock clock) {
        this.clock = clock;
        this.startedAt = clock.instant();
    }

    /** A step begins. */
    void begin() {
        startedAt = clock.instant();
        request = "{}";
        response = "{}";
        modelNanos = 0;
        inputTokens = 0;
        outputTokens = 0;
    }

    /** The stored messages the step's prompt was compiled from. */
    void prompt(List<ConversationMessage> messages) {
        promptIds = messages.stream().map(ConversationMessage::id).toList();
    }

    /** A call to the model was made (a retry after compacting is another call of the same step). */
    void asked(List<ToolDefinition> tools, int promptTokens, int promptMessages) {
        ObjectNode o = Heartbeats.JSON.createObjectNode();
        ArrayNode ids = o.putArray("message_ids");
        promptIds.forEach(ids::add);
        ArrayNode names = o.putArray("tools");
        tools.forEach(t -> names.add(t.name()));
        o.put("prompt_messages", promptMessages);
        o.put("estimated_prompt_tokens", promptTokens);
        request = Heartbeats.JSON.writeValueAsString(o);
    }

    /** The model's call ended, after {@code nanos}, answered ({@code answer}) or not. */
    void answered(long nanos, Optional<ChatMessage.Assistant> answer, int in, int out) {
        modelNanos += nanos;
        inputTokens += in;
        outputTokens += out;
        answer.ifPresent(a -> {
            ObjectNode o = Heartbeats.JSON.createObjectNode().put("text", a.text());
            ArrayNode calls = o.putArray("tool_calls");
            for (ToolCall c : a.toolCalls()) {
                calls.addObject().put("id", c.id()).put("name", c.name()).put("arguments", c.arguments());
            }
            response = Heartbeats.JSON.writeValueAsString(o);
        });
    }

    /** The event of the step that ended, with the turn's stop reason when the turn stops after it. */
    AgentEvent.StepTaken taken(Scope scope, String session, int step, String model,
            Optional<AgentStopReason> stop, String status) {
        return new AgentEvent.StepTaken(scope, session, step, model, startedAt, Duration.ofNanos(modelNanos),
                clock.instant(), inputTokens, outputTokens, request, response, stop, status);
    }
}
