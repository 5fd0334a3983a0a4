package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentResponse;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.ToolOutcome;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/agents/{id}/messages}: send (a {@code LettaResponse}), stream (SSE), list, cancel, and
 * {@code reset-messages}. A message is a turn of the agent ({@link Turns}); an approval message answers
 * the call its turn waits on.
 */
final class MessageRoutes {
    private final Api api;

    MessageRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return List.of(
                Route.agent(api, POST, "/v1/agents/{agent_id}/messages/stream", this::stream),
                Route.agent(api, POST, "/v1/agents/{agent_id}/messages/cancel", this::cancel),
                Route.agent(api, POST, "/v1/agents/{agent_id}/messages", this::send),
                Route.agent(api, GET, "/v1/agents/{agent_id}/messages", this::list),
                Route.agent(api, PATCH, "/v1/agents/{agent_id}/reset-messages", this::reset));
    }

    private void send(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        LettaTurns.Input input = LettaTurns.input(body, api.store.limits().maxTextChars());
        LettaTurns.fitsWindow(agent, input, body);
        LettaTurns.View view = LettaTurns.view(body);
        if (body.bool("streaming").orElse(false)) {
            new SseTurn(api, agent, view, body.bool("stream_tokens").orElse(false), body.bool("include_pings").orElse(false))
                    .run(input, res);
            return;
        }
        Turns.Running turn = LettaTurns.begin(api, agent, input, false, null);
        Api.json(res, response(turn, LettaTurns.await(turn), view));
    }

    private void stream(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        LettaTurns.Input input = LettaTurns.input(body, api.store.limits().maxTextChars());
        LettaTurns.fitsWindow(agent, input, body);
        new SseTurn(api, agent, LettaTurns.view(body), body.bool("stream_tokens").orElse(false), body.bool("include_pings").orElse(false))
                .run(input, res);
    }

    /** Letta's {@code LettaResponse} for where the turn paused. */
    private ObjectNode response(Turns.Running turn, Turns.Pause pause, LettaTurns.View view) {
        ObjectNode out = Body.JSON.createObjectNode();
        List<ObjectNode> messages = new ArrayList<>(view.of(turn.unshown()));
        String reason;
        AgentResponse response = null;
        switch (pause) {
            case Turns.Pause.Finished f -> {
                response = f.response();
                reason = LettaTurns.stopReason(f.response().stopReason());
            }
            case Turns.Pause.NeedsApproval n -> {
                messages = LettaTurns.withApprovalRequest(messages, n.pending());
                reason = "requires_approval";
            }
            case Turns.Pause.Failed f -> throw LettaTurns.turnFailed(f.error());
        }
        out.set("messages", Body.JSON.createArrayNode().addAll(messages));
        out.set("stop_reason", LettaTurns.stopReasonMessage(reason));
        out.set("usage", LettaTurns.usage(response));
        return out;
    }

    private void list(Agent agent, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 100, false);
        LettaTurns.messageTypes(Query.all(req, "include_return_message_types"), List.of("query", "include_return_message_types"));
        LettaTurns.View view = new LettaTurns.View(Query.bool(req, "use_assistant_message", true),
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
            List<ObjectNode> letta = new ArrayList<>(view.of(stored, callId -> callName(agent, stored.getFirst().id(), callId),
                    callId -> laterOutcome(agent, stored.getLast().id(), callId)));
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

    /** The outcome of a call, from the tool results shortly after message {@code after}. */
    private Optional<ToolOutcome> laterOutcome(Agent agent, long after, String callId) {
        return api.store.messages().list(agent.scope(), MessageQuery.all().withIdRange(after, Long.MAX_VALUE).withLimit(50)).stream()
                .filter(m -> m.toolCallId().filter(callId::equals).isPresent()).findFirst().flatMap(ConversationMessage::toolOutcome);
    }

    private void cancel(Agent agent, ServerRequest req, ServerResponse res) {
        boolean cancelled = api.turns.cancel(agent.scope());
        Api.json(res, Body.JSON.createObjectNode().put("agent_id", agent.id()).put("cancelled", cancelled)
                .put("status", cancelled ? "cancelled" : "no run in progress"));
    }

    private void reset(Agent agent, ServerRequest req, ServerResponse res) {
        if (api.turns.running(agent.scope()).isPresent()) {
            throw ApiException.conflict("Agent '" + agent.id() + "' is working on a message; cancel it or wait, then reset.");
        }
        List<Long> ids = api.store.messages().list(agent.scope(), MessageQuery.inContext().withLimit(1_000_000)).stream()
                .map(ConversationMessage::id).toList();
        api.store.messages().markOutOfContext(agent.scope(), ids);
        Api.json(res, api.agentState(agent));
    }
}
