package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentStopReason;
import dev.engram.framework.ApprovalDecision;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/agents/{id}/messages}: send (a {@code LettaResponse}), stream (SSE), list, cancel, and
 * {@code reset-messages}. A message is a turn of the agent ({@link Turns}); an approval message answers
 * the call its turn waits on.
 */
final class MessageRoutes {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(MessageRoutes.class);

    private final Api api;

    MessageRoutes(Api api) {
        this.api = api;
    }

    void register(HttpRouting.Builder r) {
        r.post("/v1/agents/{agent_id}/messages/stream", this::stream);
        r.post("/v1/agents/{agent_id}/messages/cancel", this::cancel);
        r.post("/v1/agents/{agent_id}/messages", this::send);
        r.get("/v1/agents/{agent_id}/messages", this::list);
        r.patch("/v1/agents/{agent_id}/reset-messages", this::reset);
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
            return of(messages, callId -> Optional.empty());
        }

        List<ObjectNode> of(List<ConversationMessage> messages, java.util.function.Function<String, Optional<String>> callName) {
            List<ObjectNode> out = LettaViews.messages(messages, assistantMessages, callName);
            return types.map(t -> out.stream().filter(o -> t.contains(o.path("message_type").asString())).toList()).orElse(out);
        }
    }

    static Input input(Body body) {
        Optional<List<Body>> messages = body.objects("messages");
        Optional<JsonNode> input = body.raw("input");
        if (messages.isPresent() == input.isPresent()) {
            throw body.problem("value_error", "Send either 'messages' or 'input' (exactly one)", messages.isPresent() ? "input" : "messages");
        }
        if (input.isPresent()) {
            String text = input.get().isString() ? input.get().asString() : texts(body, input.get(), "input");
            return message(body, text, "input");
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
        return message(body, text.toString(), "messages");
    }

    private static Input message(Body body, String text, String field) {
        if (text.isBlank()) {
            throw body.problem("value_error", "The message is empty", field);
        }
        return new Input.Message(text);
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

    static View view(Body body) {
        return new View(body.bool("use_assistant_message").orElse(true),
                body.strings("include_return_message_types").map(Set::copyOf));
    }

    private void send(ServerRequest req, ServerResponse res) {
        Caller caller = api.caller(req);
        Agent agent = api.agent(caller, AgentRoutes.agentId(req));
        Body body = Api.body(req);
        Input input = input(body);
        View view = view(body);
        if (body.bool("streaming").orElse(false)) {
            new SseTurn(api, agent, view, body.bool("stream_tokens").orElse(false), body.bool("include_pings").orElse(false))
                    .run(input, res);
            return;
        }
        Turns.Running turn = begin(agent, input, false);
        Api.json(res, response(turn, await(turn), view));
    }

    private void stream(ServerRequest req, ServerResponse res) {
        Caller caller = api.caller(req);
        Agent agent = api.agent(caller, AgentRoutes.agentId(req));
        Body body = Api.body(req);
        Input input = input(body);
        new SseTurn(api, agent, view(body), body.bool("stream_tokens").orElse(false), body.bool("include_pings").orElse(false))
                .run(input, res);
    }

    /** Starts the turn a message asks for, or resumes the one an approval answers. */
    Turns.Running begin(Agent agent, Input input, boolean streamed) {
        return begin(api, agent, input, streamed, null);
    }

    static Turns.Running begin(Api api, Agent agent, Input input, boolean streamed, dev.engram.agents.AgentStreamListener listener) {
        return switch (input) {
            case Input.Message m -> api.turns.start(agent, "default", m.text(), streamed, listener);
            case Input.Approval a -> {
                Turns.Running r = api.turns.running(agent.scope()).filter(t -> t.pending().isPresent())
                        .orElseThrow(() -> ApiException.badRequest("Agent '" + agent.id()
                                + "' has no tool call waiting for approval."));
                Turns.Pending p = r.pending().orElseThrow();
                if (!a.callId().isEmpty() && !a.callId().equals(p.callId())) {
                    throw ApiException.badRequest("The call waiting for approval is '" + p.callId() + "', not '"
                            + a.callId() + "'.");
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

    static Turns.Pause await(Turns.Running turn) {
        try {
            return turn.next();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.of(Status.SERVICE_UNAVAILABLE_503, "The server is stopping.");
        }
    }

    /** Letta's {@code LettaResponse} for where the turn paused. */
    private ObjectNode response(Turns.Running turn, Turns.Pause pause, View view) {
        ObjectNode out = Body.JSON.createObjectNode();
        List<ObjectNode> messages = new ArrayList<>(view.of(api.turns.unshown(turn)));
        String reason;
        AgentResponse response = null;
        switch (pause) {
            case Turns.Pause.Finished f -> {
                response = f.response();
                reason = stopReason(f.response().stopReason());
            }
            case Turns.Pause.NeedsApproval n -> {
                messages = withApprovalRequest(messages, n.pending(), api);
                reason = "requires_approval";
            }
            case Turns.Pause.Failed f -> throw turnFailed(f.error());
        }
        out.set("messages", Body.JSON.createArrayNode().addAll(messages));
        out.set("stop_reason", stopReasonMessage(reason));
        out.set("usage", usage(response));
        return out;
    }

    /** The messages with the waiting call shown as Letta's {@code approval_request_message} instead of its tool call. */
    static List<ObjectNode> withApprovalRequest(List<ObjectNode> messages, Turns.Pending p, Api api) {
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
     * The answer to a turn that failed: the request's own answer when the server refused it (stopping, no lock), a
     * 502 when the agent's model failed, else a 500 whose details go to the log only.
     */
    static ApiException turnFailed(RuntimeException e) {
        if (e instanceof ApiException api) {
            return api;
        }
        if (e instanceof dev.engram.agents.AgentException || e instanceof dev.engram.framework.model.ModelException) {
            return ApiException.of(Status.BAD_GATEWAY_502, "The agent's model failed: " + e.getMessage()
                    + " What the agent stored before the failure stays; send the message again to retry.");
        }
        String incident = java.util.UUID.randomUUID().toString().substring(0, 8);
        LOG.error("A turn failed (incident {})", incident, e);
        return ApiException.of(Status.INTERNAL_SERVER_ERROR_500, "The turn failed (incident " + incident
                + "; the server's log has the details). What the agent stored before the failure stays.");
    }

    static String stopReason(AgentStopReason reason) {
        return switch (reason) {
            case YIELDED, END_TURN, NO_HEARTBEAT -> "end_turn";
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

    private void list(ServerRequest req, ServerResponse res) {
        Caller caller = api.caller(req);
        Agent agent = api.agent(caller, AgentRoutes.agentId(req));
        Pages pages = Pages.of(req, 100, false);
        View view = new View(Query.bool(req, "use_assistant_message", true),
                Query.all(req, "include_return_message_types").isEmpty() ? Optional.empty()
                        : Optional.of(Set.copyOf(Query.all(req, "include_return_message_types"))));
        Optional<Long> after = pages.after().map(id -> Ids.message(id, "The cursor"));
        Optional<Long> before = pages.before().map(id -> Ids.message(id, "The cursor"));
        // Newest first, 'after' a cursor means older than it and 'before' newer. A page that only has a 'before'
        // keeps the messages nearest to its cursor.
        long lower = (pages.ascending() ? after : before).orElse(0L);
        long upper = (pages.ascending() ? before : after).orElse(Long.MAX_VALUE);
        boolean newest = pages.ascending() == (before.isPresent() && after.isEmpty());
        // A stored message may show as several Letta messages (sharing its id) or as none (send_message's
        // result): whole stored messages are read until the page has 'limit' Letta messages.
        List<ObjectNode> shown = new ArrayList<>();
        while (shown.size() < pages.limit() && lower < upper - 1) {
            MessageQuery query = MessageQuery.all().withIdRange(lower, upper);
            int batch = pages.limit() - shown.size();
            List<ConversationMessage> stored = api.store.messages().list(agent.scope(),
                    newest ? query.newest(batch) : query.withLimit(batch));
            if (stored.isEmpty()) {
                break;
            }
            List<ObjectNode> letta = new ArrayList<>(view.of(stored, callId -> callName(agent, stored.getFirst().id(), callId)));
            if (newest) {
                upper = stored.getFirst().id();
            } else {
                lower = stored.getLast().id();
            }
            if (!pages.ascending()) {
                java.util.Collections.reverse(letta);
            }
            if (newest == pages.ascending()) {
                shown.addAll(0, letta);
            } else {
                shown.addAll(letta);
            }
        }
        Api.json(res, shown);
    }

    /** The tool a call was made to, from the assistant messages shortly before message {@code before}. */
    private Optional<String> callName(Agent agent, long before, String callId) {
        return api.store.messages().list(agent.scope(), MessageQuery.all().withIdRange(0, before).newest(50)).stream()
                .flatMap(m -> m.toolCalls().stream()).filter(c -> c.id().equals(callId)).map(c -> c.name()).findFirst();
    }

    private void cancel(ServerRequest req, ServerResponse res) {
        Caller caller = api.caller(req);
        Agent agent = api.agent(caller, AgentRoutes.agentId(req));
        boolean cancelled = api.turns.cancel(agent.scope());
        Api.json(res, Body.JSON.createObjectNode().put("agent_id", agent.id()).put("cancelled", cancelled)
                .put("status", cancelled ? "cancelled" : "no run in progress"));
    }

    private void reset(ServerRequest req, ServerResponse res) {
        Caller caller = api.caller(req);
        Agent agent = api.agent(caller, AgentRoutes.agentId(req));
        if (api.turns.running(agent.scope()).isPresent()) {
            throw ApiException.conflict("Agent '" + agent.id() + "' is working on a message; cancel it or wait, then reset.");
        }
        List<Long> ids = api.store.messages().list(agent.scope(), MessageQuery.inContext().withLimit(1_000_000)).stream()
                .map(ConversationMessage::id).toList();
        api.store.messages().markOutOfContext(agent.scope(), ids);
        Api.json(res, api.agentState(agent));
    }
}
