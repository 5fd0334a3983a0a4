package dev.engram.server;

import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentStopReason;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.ToolOutcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import tools.jackson.databind.node.ObjectNode;

/**
 * A turn's answer in Letta's terms, beside {@link LettaViews}: the display options of a request and the messages they
 * show, the waiting call shown as an {@code approval_request_message}, and the answer's stop reason and usage.
 */
final class TurnViews {
    private TurnViews() {
    }

    /** The display options of a request ({@code use_assistant_message}, {@code include_return_message_types}). */
    record View(boolean assistantMessages, Optional<Set<String>> types) {
        List<ObjectNode> of(List<ConversationMessage> messages) {
            return of(messages, callId -> Optional.empty(), callId -> Optional.empty());
        }

        /** See {@link LettaViews#messages(List, boolean, Function, Function)}. */
        List<ObjectNode> of(List<ConversationMessage> messages, Function<String, Optional<String>> callName,
                Function<String, Optional<ToolOutcome>> laterOutcome) {
            List<ObjectNode> out = LettaViews.messages(messages, assistantMessages, callName, laterOutcome);
            return types.map(t -> out.stream().filter(o -> t.contains(o.path("message_type").asString())).toList()).orElse(out);
        }
    }

    /** Letta's {@code MessageType} values, which {@code include_return_message_types} takes. */
    static final List<String> MESSAGE_TYPES = List.of("system_message", "user_message", "assistant_message",
            "reasoning_message", "hidden_reasoning_message", "tool_call_message", "tool_return_message",
            "approval_request_message", "approval_response_message", "summary_message", "event_message");

    static View view(Body body) {
        Optional<List<String>> types = body.strings("include_return_message_types");
        types.ifPresent(t -> messageTypes(t, body.location("include_return_message_types")));
        return new View(body.bool("use_assistant_message").orElse(true), types.map(Set::copyOf));
    }

    /** A 422 naming the field and the values it takes when one of {@code types} is not a Letta message type. */
    static void messageTypes(List<String> types, List<String> location) {
        for (int i = 0; i < types.size(); i++) {
            if (!MESSAGE_TYPES.contains(types.get(i))) {
                List<String> at = new ArrayList<>(location);
                at.add(String.valueOf(i));
                throw ApiException.invalid(List.of(new ApiException.Problem("enum", "Input should be one of "
                        + String.join(", ", MESSAGE_TYPES) + ", not '" + types.get(i) + "'", at)));
            }
        }
    }

    /**
     * The messages with each waiting call shown as Letta's {@code approval_request_message} (one per call, each with its
     * {@code tool_call} and a {@code tool_calls} list of it) instead of its tool call; the calls of the same step that
     * wait for nothing stay tool calls.
     */
    static List<ObjectNode> withApprovalRequest(List<ObjectNode> messages, List<Turns.Pending> waiting) {
        List<ObjectNode> out = new ArrayList<>();
        Map<String, String> ids = new HashMap<>();
        for (ObjectNode m : messages) {
            String callId = m.path("tool_call").path("tool_call_id").asString();
            if (m.path("message_type").asString().equals("tool_call_message")
                    && waiting.stream().anyMatch(p -> p.callId().equals(callId))) {
                ids.put(callId, m.path("id").asString());
                continue;
            }
            out.add(m);
        }
        for (Turns.Pending p : waiting) {
            out.add(LettaViews.approvalRequest(ids.getOrDefault(p.callId(), "approval-" + p.callId()), p.at(), p.toolName(),
                    p.arguments(), p.callId()));
        }
        return out;
    }

    /**
     * A listed message as Letta lists a call that waits for approval or for the client's result: its
     * {@code tool_call_message} becomes the call's {@code approval_request_message} (with the stored message's id), so
     * that a client that lists the messages, as Letta Code does when it reconnects, finds what the turn waits on.
     */
    static ObjectNode asWaiting(ObjectNode message, List<Turns.Pending> waiting) {
        if (!message.path("message_type").asString().equals("tool_call_message")) {
            return message;
        }
        String callId = message.path("tool_call").path("tool_call_id").asString();
        return waiting.stream().filter(p -> p.callId().equals(callId)).findFirst()
                .map(p -> LettaViews.approvalRequest(message.path("id").asString(), p.at(), p.toolName(), p.arguments(),
                        p.callId()))
                .orElse(message);
    }

    /**
     * Letta's {@code StopReasonType} for why a turn stopped: {@code end_turn} only when the agent answered (a message to
     * the user, or a final text); {@code no_tool_call} when a MemGPT-style loop stopped after a call that neither asked
     * for a heartbeat nor messaged the user, so the turn ended without the call that answers; {@code tool_rule} for a
     * terminal tool; {@code max_steps} for the step cap and the repeated-call breaker; {@code invalid_tool_call} when the
     * model's calls kept failing; {@code cancelled}.
     */
    static String stopReason(AgentStopReason reason) {
        return switch (reason) {
            case YIELDED, END_TURN -> "end_turn";
            case NO_HEARTBEAT -> "no_tool_call";
            case TERMINAL_TOOL -> "tool_rule";
            case STEP_CAP, LOOP_BREAKER -> "max_steps";
            case TOO_MANY_ERRORS -> "invalid_tool_call";
            case CANCELLED -> "cancelled";
        };
    }

    static ObjectNode stopReasonMessage(String reason) {
        return Body.JSON.createObjectNode().put("message_type", "stop_reason").put("stop_reason", reason);
    }

    static ObjectNode usage(AgentResponse r) {
        ObjectNode u = Body.JSON.createObjectNode().put("message_type", "usage_statistics");
        long in = r == null ? 0 : r.inputTokens();
        long out = r == null ? 0 : r.outputTokens();
        u.put("completion_tokens", out);
        u.put("prompt_tokens", in);
        u.put("total_tokens", in + out);
        u.put("step_count", r == null ? 0 : r.steps());
        u.putNull("run_ids");
        return u;
    }

    /** Letta's {@code LettaResponse} for where the turn paused. */
    static ObjectNode response(Turns.Running turn, Turns.Pause pause, TurnViews.View view) {
        ObjectNode out = Body.JSON.createObjectNode();
        List<ObjectNode> messages = new ArrayList<>(view.of(turn.unshown()));
        String reason;
        AgentResponse response = null;
        switch (pause) {
            case Turns.Pause.Finished f -> {
                response = f.response();
                reason = TurnViews.stopReason(f.response().stopReason());
            }
            case Turns.Pause.NeedsApproval n -> {
                messages = TurnViews.withApprovalRequest(messages, n.pending());
                reason = "requires_approval";
            }
            case Turns.Pause.Failed f -> throw TurnFlow.turnFailed(f.error());
        }
        out.set("messages", Body.JSON.createArrayNode().addAll(messages));
        out.set("stop_reason", TurnViews.stopReasonMessage(reason));
        out.set("usage", TurnViews.usage(response));
        return out;
    }
}
