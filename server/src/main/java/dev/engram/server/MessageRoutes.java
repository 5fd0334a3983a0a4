package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentResponse;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import dev.engram.memory.ToolOutcome;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
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
        TurnRequest request = TurnRequest.of(agent, body, api.messageLimits(), false);
        if (request.streaming()) {
            SseTurn.of(api, agent, request, body).run(request.input(), res);
            return;
        }
        Api.json(res, api.runs.respond(api, agent, "default", request));
    }

    private void stream(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        TurnRequest request = TurnRequest.of(agent, body, api.messageLimits(), true);
        SseTurn.of(api, agent, request, body).run(request.input(), res);
    }

    private void list(Agent agent, ServerRequest req, ServerResponse res) {
        Api.json(res, page(api, agent, req, MessageQuery.all(), m -> true));
    }

    /**
     * A page of Letta's {@code GET .../messages}: the agent's stored messages that {@code query} selects (e.g. one
     * session's) and {@code keep} keeps, as Letta's messages, by the request's cursors, order and display options.
     */
    static List<ObjectNode> page(Api api, Agent agent, ServerRequest req, MessageQuery query,
            Predicate<ConversationMessage> keep) {
        Pages pages = Pages.of(req, 100, false);
        TurnViews.messageTypes(Query.all(req, "include_return_message_types"), List.of("query", "include_return_message_types"));
        TurnViews.View view = new TurnViews.View(Query.bool(req, "use_assistant_message", true),
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
        List<Turns.Pending> waiting = api.turns.running(agent.scope()).map(Turns.Running::pending).orElse(List.of());
        while (shown.size() < pages.limit() && lower < upper - 1) {
            MessageQuery range = query.withIdRange(lower, upper);
            int batch = pages.limit() - shown.size();
            List<ConversationMessage> stored = api.store.messages().list(agent.scope(),
                    newest ? range.newest(batch) : range.withLimit(batch));
            if (stored.isEmpty()) {
                break;
            }
            List<ConversationMessage> kept = stored.stream().filter(keep).toList();
            List<ObjectNode> letta = new ArrayList<>(view.of(kept, callId -> callName(api, agent, stored.getFirst().id(), callId),
                    callId -> laterOutcome(api, agent.scope(), stored.getLast().id(), callId)));
            if (!waiting.isEmpty()) {
                letta.replaceAll(m -> TurnViews.asWaiting(m, waiting));
            }
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
        return shown;
    }

    /** The tool a call was made to, from the assistant messages shortly before message {@code before}. */
    private static Optional<String> callName(Api api, Agent agent, long before, String callId) {
        return api.store.messages().list(agent.scope(), MessageQuery.all().withIdRange(0, before).newest(50)).stream()
                .flatMap(m -> m.toolCalls().stream()).filter(c -> c.id().equals(callId)).map(c -> c.name()).findFirst();
    }

    /** The outcome of a call, from the tool results shortly after message {@code after}. */
    static Optional<ToolOutcome> laterOutcome(Api api, Scope scope, long after, String callId) {
        return api.store.messages().list(scope, MessageQuery.all().withIdRange(after, Long.MAX_VALUE).withLimit(50)).stream()
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
