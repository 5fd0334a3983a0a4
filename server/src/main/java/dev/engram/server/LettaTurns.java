package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentException;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentStopReason;
import dev.engram.agents.TokenCounter;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.model.ModelException;
import dev.engram.framework.model.ModelHttpException;
import dev.engram.framework.model.ModelTimeoutException;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.ToolOutcome;
import io.helidon.http.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A turn in Letta's terms, shared by the JSON answer ({@link MessageRoutes}) and the stream ({@link SseTurn}): what a
 * request asks (a message or an approval's answer), how the answer shows messages, starting or resuming the turn,
 * and the stop reason, usage and failure of its answer.
 */
final class LettaTurns {
    private LettaTurns() {
    }

    /** What a request asks: a message for the agent, or the answer to the call its turn waits on. */
    sealed interface Input {
        record Message(String text) implements Input {
        }

        record Approval(String callId, String requestId, boolean approve, Optional<String> reason) implements Input {
        }
    }

    /** The display options of a request ({@code use_assistant_message}, {@code include_return_message_types}). */
    record View(boolean assistantMessages, Optional<Set<String>> types) {
        List<ObjectNode> of(List<ConversationMessage> messages) {
            return of(messages, callId -> Optional.empty(), callId -> Optional.empty());
        }

        /** See {@link LettaViews#messages(List, boolean, java.util.function.Function, java.util.function.Function)}. */
        List<ObjectNode> of(List<ConversationMessage> messages, java.util.function.Function<String, Optional<String>> callName,
                java.util.function.Function<String, Optional<ToolOutcome>> laterOutcome) {
            List<ObjectNode> out = LettaViews.messages(messages, assistantMessages, callName, laterOutcome);
            return types.map(t -> out.stream().filter(o -> t.contains(o.path("message_type").asString())).toList()).orElse(out);
        }
    }

    /**
     * What a request body asks; a 422 naming the field for anything malformed, and for a message longer than
     * {@code maxChars} (the store's {@code MemoryLimits.maxTextChars}, which would refuse it mid-turn).
     */
    static Input input(Body body, int maxChars) {
        Optional<List<Body>> messages = body.objects("messages");
        Optional<JsonNode> input = body.raw("input");
        if (messages.isPresent() == input.isPresent()) {
            throw body.problem("value_error", "Send either 'messages' or 'input' (exactly one)", messages.isPresent() ? "input" : "messages");
        }
        if (input.isPresent()) {
            String text = input.get().isString() ? input.get().asString() : texts(body, input.get(), "input");
            return message(body, text, "input", maxChars);
        }
        List<Body> list = messages.get();
        if (list.isEmpty()) {
            throw body.problem("too_short", "List should have at least 1 item", "messages");
        }
        if (list.getFirst().string("type").orElse("message").equals("approval")) {
            if (list.size() > 1) {
                throw body.problem("value_error", "An approval is sent alone", "messages");
            }
            return approval(list.getFirst());
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < list.size(); i++) {
            Body m = list.get(i);
            String type = m.string("type").orElse("message");
            if (!type.equals("message")) {
                throw m.problem("literal_error", "Input should be 'message' or 'approval' (an approval is sent alone)", "type");
            }
            String role = m.requiredString("role");
            if (!role.equals("user")) {
                throw m.problem("literal_error", "Engram's agents take user messages: role should be 'user', not '" + role + "'", "role");
            }
            JsonNode content = m.raw("content").orElseThrow(() -> m.problem("missing", "Field required", "content"));
            text.append(text.isEmpty() ? "" : "\n\n").append(content.isString() ? content.asString() : texts(m, content, "content"));
        }
        return message(body, text.toString(), "messages", maxChars);
    }

    private static Input message(Body body, String text, String field, int maxChars) {
        if (text.isBlank()) {
            throw body.problem("value_error", "The message is empty", field);
        }
        if (text.length() > maxChars) {
            throw body.problem("string_too_long", "The message has " + text.length() + " characters; this server takes at most "
                    + maxChars + " in one message (the store's MemoryLimits.maxTextChars): split it, or send a summary", field);
        }
        return new Input.Message(text);
    }

    /**
     * A 422 for a message that alone takes more tokens than the agent's context window (the turn could only fail:
     * nothing it could drop from the window would make room). Counted as the runtime counts by default
     * ({@link TokenCounter#forModel}); a text with no more characters than the window has tokens is never counted.
     */
    static void fitsWindow(Agent agent, Input input, Body body) {
        if (!(input instanceof Input.Message m)) {
            return;
        }
        int window = agent.definition().contextWindowTokens();
        if (m.text().length() <= window) {
            return;
        }
        int tokens = TokenCounter.forModel(TokenCounter.modelName(agent.definition().model())).count(m.text());
        if (tokens > window) {
            throw body.problem("value_error", "The message is about " + tokens + " tokens, more than agent '" + agent.id()
                    + "''s whole context window of " + window + " tokens: split it, send a summary, or raise the agent's "
                    + "context_window_limit (PATCH /v1/agents/" + agent.id() + ")", body.has("input") ? "input" : "messages");
        }
    }

    /** The text of Letta's content parts ({@code [{"type": "text", "text": ...}]}); other kinds are refused. */
    private static String texts(Body body, JsonNode parts, String field) {
        if (!parts.isArray()) {
            throw body.problem("string_type", "Input should be a valid string or a list of content parts", field);
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < parts.size(); i++) {
            Body part = Body.of(parts.get(i), body.location(field, String.valueOf(i)));
            String type = part.requiredString("type");
            if (!type.equals("text")) {
                throw part.problem("literal_error", "Only text content is supported, not '" + type + "'", "type");
            }
            text.append(text.isEmpty() ? "" : "\n").append(part.requiredString("text"));
        }
        return text.toString();
    }

    private static Input approval(Body m) {
        Optional<List<Body>> approvals = m.objects("approvals");
        if (approvals.isPresent() && !approvals.get().isEmpty()) {
            if (approvals.get().size() > 1) {
                throw m.problem("value_error", "Engram's agents wait for one approval at a time; send one", "approvals");
            }
            Body a = approvals.get().getFirst();
            return new Input.Approval(a.requiredString("tool_call_id"), "",
                    a.bool("approve").orElseThrow(() -> a.problem("missing", "Field required", "approve")), a.string("reason"));
        }
        boolean approve = m.bool("approve").orElseThrow(() -> m.problem("missing", "Field required", "approve"));
        return new Input.Approval("", m.requiredString("approval_request_id"), approve, m.string("reason"));
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

    /** Starts the turn a message asks for, or resumes the one an approval answers (directing its stream events to {@code listener}). */
    static Turns.Running begin(Api api, Agent agent, Input input, boolean streamed, dev.engram.agents.AgentStreamListener listener) {
        return switch (input) {
            case Input.Message m -> {
                api.quotas.turn(agent.userId());
                yield api.turns.start(agent, "default", m.text(), streamed, listener);
            }
            case Input.Approval a -> {
                Turns.Running r = api.turns.running(agent.scope()).filter(t -> t.pending().isPresent())
                        .orElseThrow(() -> ApiException.badRequest("Agent '" + agent.id()
                                + "' has no tool call waiting for approval."));
                Turns.Pending p = r.pending().orElseThrow();
                if (!a.callId().isEmpty() && !a.callId().equals(p.callId())) {
                    throw ApiException.badRequest("The call waiting for approval is '" + p.callId() + "', not '"
                            + a.callId() + "'.");
                }
                if (!a.requestId().isEmpty() && !approvalRequestIds(r, p).contains(a.requestId())) {
                    throw ApiException.badRequest("approval_request_id '" + a.requestId() + "' does not name the call "
                            + "waiting for approval (tool_call_id " + p.callId() + ").");
                }
                r.listen(listener);
                ApprovalDecision decision = a.approve() ? ApprovalDecision.approve()
                        : a.reason().map(ApprovalDecision::deny).orElse(ApprovalDecision.deny());
                if (!api.turns.answer(r, a.callId(), decision)) {
                    throw ApiException.badRequest("Agent '" + agent.id() + "' has no tool call waiting for approval.");
                }
                yield r;
            }
        };
    }

    /** The ids the approval request of a pending call may have been shown with: its stored message's, or its own. */
    private static Set<String> approvalRequestIds(Turns.Running turn, Turns.Pending p) {
        Set<String> ids = new java.util.HashSet<>(Set.of("approval-" + p.callId()));
        turn.messageWithCall(p.callId()).ifPresent(m -> ids.add(Ids.message(m.id())));
        return ids;
    }

    static Turns.Pause await(Turns.Running turn) {
        try {
            return turn.next();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.of(Status.SERVICE_UNAVAILABLE_503, "The server is stopping.");
        }
    }

    /** The messages with the waiting call shown as Letta's {@code approval_request_message} instead of its tool call. */
    static List<ObjectNode> withApprovalRequest(List<ObjectNode> messages, Turns.Pending p) {
        List<ObjectNode> out = new ArrayList<>();
        String id = null;
        for (ObjectNode m : messages) {
            if (m.path("message_type").asString().equals("tool_call_message")
                    && m.path("tool_call").path("tool_call_id").asString().equals(p.callId())) {
                id = m.path("id").asString();
                continue;
            }
            out.add(m);
        }
        out.add(LettaViews.approvalRequest(id == null ? "approval-" + p.callId() : id, p.at(), p.toolName(), p.arguments(),
                p.callId()));
        return out;
    }

    /**
     * The answer to a turn that failed: the request's own answer when the server refused it (stopping, no lock); a
     * 503 or 507 when the memory store failed ({@link StoreFailures}); a 504 when the
     * agent's model ran out of its timeout; a 502 when it failed otherwise, saying
     * only that and the provider's status, since the provider's own error text (or what a model script's file held)
     * is no client's to read; Engram's own refusal of the turn as it wrote it; else a 500. Every detail but Engram's
     * own sentence goes to the log only, under an incident id.
     */
    static ApiException turnFailed(RuntimeException e) {
        if (e instanceof ApiException api) {
            return api;
        }
        Optional<ApiException> store = StoreFailures.answerTurn(e);
        if (store.isPresent()) {
            return store.get();
        }
        if (cause(e, ModelTimeoutException.class).isPresent()) {
            return ApiException.of(Status.GATEWAY_TIMEOUT_504, "The agent's model did not answer in time: "
                    + Incidents.clientText(e, "A turn") + " What the agent stored before the failure stays; send the "
                    + "message again to retry.");
        }
        Optional<ModelException> model = cause(e, ModelException.class);
        if (model.isPresent() || (e instanceof AgentException && e.getCause() != null)) {
            String incident = Incidents.unexpected("A turn's model failed", e);
            String status = model.filter(ModelHttpException.class::isInstance).map(m -> " (the provider answered HTTP "
                    + ((ModelHttpException) m).status() + ")").orElse("");
            return ApiException.of(Status.BAD_GATEWAY_502, "The agent's model failed" + status + " (incident " + incident
                    + "; the server's log has the details). What the agent stored before the failure stays; send the "
                    + "message again to retry.");
        }
        if (e instanceof AgentException) {
            return ApiException.of(Status.BAD_GATEWAY_502, Incidents.clientText(e, "A turn") + " What the agent stored before the failure "
                    + "stays; send the message again to retry.");
        }
        String incident = Incidents.unexpected("A turn failed", e);
        return ApiException.of(Status.INTERNAL_SERVER_ERROR_500, "The turn failed (incident " + incident
                + "; the server's log has the details). What the agent stored before the failure stays.");
    }

    private static <T extends Throwable> Optional<T> cause(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return Optional.of(type.cast(t));
            }
        }
        return Optional.empty();
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
}
