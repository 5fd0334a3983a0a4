package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.agents.Compaction;
import dev.engram.agents.LettaModels;
import dev.engram.memory.Conversation;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.ConversationStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Run;
import dev.engram.memory.Scope;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/conversations}: several conversations with one agent over the same memory. A conversation's messages are
 * those stored under its id as their session, and a turn in it sees only those (with the agent's shared blocks); the
 * conversation {@code default}, with an {@code agent_id}, is the agent's own history, as in Letta. A conversation is
 * its user's: any other key gets 404.
 */
final class ConversationRoutes {
    /** Letta's name of an agent's own history. */
    static final String DEFAULT = "default";

    private final Api api;

    ConversationRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/conversations", this::list))
                .twin(Route.caller(POST, "/v1/conversations", this::create))
                .add(Route.caller(GET, "/v1/conversations/{conversation_id}", this::retrieve))
                .add(Route.caller(PATCH, "/v1/conversations/{conversation_id}", this::modify))
                .add(Route.caller(DELETE, "/v1/conversations/{conversation_id}", this::delete))
                .add(Route.caller(GET, "/v1/conversations/{conversation_id}/messages", this::messages))
                .add(Route.caller(POST, "/v1/conversations/{conversation_id}/messages", this::send))
                .add(Route.caller(POST, "/v1/conversations/{conversation_id}/stream", this::resume))
                .add(Route.caller(POST, "/v1/conversations/{conversation_id}/cancel", this::cancel))
                .add(Route.caller(POST, "/v1/conversations/{conversation_id}/fork", this::fork))
                .add(Route.caller(POST, "/v1/conversations/{conversation_id}/recompile", this::recompile))
                .add(Route.caller(POST, "/v1/conversations/{conversation_id}/compact", this::compact))
                .list();
    }

    /** A conversation the caller named, with its agent: a stored one, or {@code default} (the agent's own history). */
    record Target(Agent agent, Optional<Conversation> conversation) {
        String session() {
            return conversation.map(Conversation::id).orElse(DEFAULT);
        }

        /** Whether a stored message belongs to this conversation. */
        boolean has(ConversationMessage m) {
            return conversation.isPresent() ? m.sessionId().equals(session()) : !Conversation.isConversationSession(m.sessionId());
        }
    }

    /** The caller's conversation the path names; {@code default} needs the agent's id (query, or {@code body}'s). */
    Target target(Caller caller, ServerRequest req, Optional<String> bodyAgentId) {
        String id = req.path().pathParameters().get("conversation_id");
        if (id.equals(DEFAULT)) {
            String agentId = Query.string(req, "agent_id").or(() -> bodyAgentId).orElseThrow(() -> ApiException.invalid(
                    "missing", "The conversation 'default' is an agent's own history: name the agent with agent_id",
                    "query", "agent_id"));
            return new Target(api.agent(caller, agentId), Optional.empty());
        }
        for (String user : api.users(caller)) {
            Optional<Conversation> c = api.store.conversations().get(user, id);
            if (c.isPresent()) {
                return new Target(agentOf(caller, c.get()), c);
            }
        }
        throw ApiException.notFound("Conversation '" + id + "' not found.");
    }

    private Agent agentOf(Caller caller, Conversation c) {
        try {
            return api.agent(caller, c.agentId());
        } catch (ApiException e) {
            throw ApiException.notFound("Conversation '" + c.id() + "' not found (its agent '" + c.agentId()
                    + "' was deleted).");
        }
    }

    private void create(Caller caller, ServerRequest req, ServerResponse res) {
        String agentId = Query.string(req, "agent_id").orElseThrow(() -> ApiException.invalid("missing", "Field required",
                "query", "agent_id"));
        Agent agent = api.agent(caller, agentId);
        Body body = Api.body(req);
        String summary = summary(body);
        if (!body.strings("isolated_block_labels").orElse(List.of()).isEmpty()) {
            throw body.problem("value_error", "Engram's conversations share all of the agent's blocks; isolated blocks "
                    + "are not supported (send no isolated_block_labels)", "isolated_block_labels");
        }
        model(body, agent);
        Api.json(res, view(api.store.conversations().create(agent.scope(), summary)));
    }

    /** The summary a body gives; a 422 for one that is too long or not text. */
    private static String summary(Body body) {
        String summary = body.string("summary").orElse("");
        if (summary.length() > ConversationStore.MAX_SUMMARY_CHARS) {
            throw body.problem("string_too_long", "A summary has at most "
                    + ConversationStore.MAX_SUMMARY_CHARS + " characters, got " + summary.length(), "summary");
        }
        return summary;
    }

    /** A {@code model} in a body is accepted only when it is the agent's own: a conversation runs on its agent's model. */
    private static void model(Body body, Agent agent) {
        body.string("model").ifPresent(m -> {
            String own = agent.definition().model();
            if (!m.equals(own) && !m.equals(LettaModels.handle(own))) {
                throw body.problem("value_error", "A conversation runs on its agent's model ('" + LettaModels.handle(own)
                        + "'); change the agent's model instead (PATCH /v1/agents/" + agent.id() + ")", "model");
            }
        });
    }

    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, false);
        Optional<String> agentId = Query.string(req, "agent_id");
        Optional<String> search = Query.string(req, "summary_search").map(String::toLowerCase);
        Optional<String> orderBy = Query.string(req, "order_by");
        if (orderBy.isPresent() && !List.of("created_at", "last_run_completion", "last_message_at").contains(orderBy.get())) {
            throw ApiException.invalid("enum", "Input should be 'created_at', 'last_run_completion' or 'last_message_at'",
                    "query", "order_by");
        }
        agentId.ifPresent(id -> api.agent(caller, id));
        List<Conversation> all = new ArrayList<>();
        for (String user : api.users(caller)) {
            for (Conversation c : api.store.conversations().list(user)) {
                if (agentId.map(c.agentId()::equals).orElse(true)
                        && search.map(s -> c.summary().toLowerCase().contains(s)).orElse(true)) {
                    all.add(c);
                }
            }
        }
        all.sort(Comparator.comparing(Conversation::createdAt).thenComparing(Conversation::id));
        Api.json(res, pages.page(all, Conversation::id, "conversation").stream().map(this::view).toList());
    }

    private void retrieve(Caller caller, ServerRequest req, ServerResponse res) {
        Target t = stored(caller, req);
        Api.json(res, view(t.conversation().orElseThrow()));
    }

    /** A stored conversation (not {@code default}, which has no record to change). */
    private Target stored(Caller caller, ServerRequest req) {
        Target t = target(caller, req, Optional.empty());
        if (t.conversation().isEmpty()) {
            throw ApiException.badRequest("The conversation 'default' is agent '" + t.agent().id() + "''s own history; it "
                    + "has no record of its own to read, change or delete.");
        }
        return t;
    }

    private void modify(Caller caller, ServerRequest req, ServerResponse res) {
        Target t = stored(caller, req);
        Body body = Api.body(req);
        String summary = summary(body);
        model(body, t.agent());
        Conversation c = t.conversation().orElseThrow();
        Api.json(res, view(body.has("summary") ? api.store.conversations().updateSummary(c.userId(), c.id(), summary) : c));
    }

    private void delete(Caller caller, ServerRequest req, ServerResponse res) {
        Conversation c = stored(caller, req).conversation().orElseThrow();
        api.store.conversations().delete(c.userId(), c.id());
        Api.json(res, Body.JSON.createObjectNode());
    }

    private void messages(Caller caller, ServerRequest req, ServerResponse res) {
        Target t = target(caller, req, Optional.empty());
        MessageQuery query = t.conversation().isPresent() ? MessageQuery.all().withSession(t.session()) : MessageQuery.all();
        Api.json(res, MessageRoutes.page(api, t.agent(), req, query, t::has));
    }

    /** A message (or an approval) in the conversation: a {@code LettaResponse}, or SSE (Letta's default here). */
    private void send(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        Target t = target(caller, req, body.string("agent_id"));
        TurnRequest request = TurnRequest.of(t.agent(), body, api.messageLimits(), false, true);
        if (request.streaming()) {
            SseTurn.of(api, t.agent(), request, body).run(t.session(), request.input(), res);
            return;
        }
        Api.json(res, api.runs.respond(api, t.agent(), t.session(), request));
    }

    /**
     * The stream of the conversation's active background run picked up where it broke ({@link RunReplay}); the body's
     * {@code run_id} names a run directly. A 400, in Letta's words, when the conversation has no active run.
     */
    private void resume(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        Optional<String> runId = body.string("run_id");
        Run run;
        if (runId.isPresent()) {
            run = api.runs.get(api, caller, runId.get());
        } else {
            Target t = target(caller, req, body.string("agent_id"));
            run = api.store.runs().latest(t.agent().scope(), t.session())
                    .filter(r -> r.status().isActive() && !api.runs.isStale(r))
                    .orElseThrow(() -> ApiException.badRequest("No active runs found for this conversation."));
        }
        RunReplay.stream(api, run, body, res);
    }

    /**
     * Cancels the conversation's active run, as Letta does: {@code {"<run id>": "cancelled"}} (or {@code "failed"} when it
     * runs on another server, which this one cannot stop), and a 409 naming the conversation when it has none. A turn of
     * this conversation that waits for approval or a client's result is cancelled too (its calls get a result).
     */
    private void cancel(Caller caller, ServerRequest req, ServerResponse res) {
        Target t = target(caller, req, Optional.empty());
        Scope scope = t.agent().scope();
        Optional<Turns.Running> here = api.turns.running(scope).filter(r -> r.session.equals(t.session()));
        Optional<Run> active = api.store.runs().latest(scope, t.session())
                .filter(r -> r.status().isActive() && !api.runs.isStale(r));
        if (here.isEmpty() && active.isEmpty()) {
            throw ApiException.conflict("No active runs to cancel for conversation " + t.session());
        }
        boolean cancelled = here.isPresent() && api.turns.cancel(scope);
        String run = active.or(() -> api.store.runs().latest(scope, t.session())).map(Run::id)
                .orElse("default".equals(t.session()) ? t.agent().id() : t.session());
        Api.json(res, Body.JSON.createObjectNode().put(run, cancelled ? "cancelled" : "failed"));
    }

    /** A new conversation with a copy of this one's messages in context (the agent's own history for {@code default}). */
    private void fork(Caller caller, ServerRequest req, ServerResponse res) {
        Target t = target(caller, req, Optional.empty());
        if (api.turns.running(t.agent().scope()).isPresent()) {
            throw ApiException.conflict("Agent '" + t.agent().id() + "' is working on a message; cancel it or wait, then fork.");
        }
        MessageQuery query = MessageQuery.inContext().withLimit(1_000_000);
        List<ConversationMessage> messages = api.store.messages().list(t.agent().scope(),
                t.conversation().isPresent() ? query.withSession(t.session()) : query).stream().filter(t::has).toList();
        String summary = t.conversation().map(Conversation::summary).orElse("");
        Conversation fork = api.store.inTransaction(tx -> {
            Conversation c = tx.conversations().create(t.agent().scope(), summary);
            tx.messages().appendAll(t.agent().scope(), messages.stream().map(m -> new NewMessage(c.id(), m.role(),
                    m.content(), m.toolCalls(), m.toolCallId(), m.toolOutcome(), m.images(), m.reasoning())).toList());
            return c;
        });
        Api.json(res, view(fork));
    }

    /**
     * The system prompt the conversation's next step compiles (its agent's, with the shared blocks as they are now).
     * For {@code default} the agent is named by {@code agent_id} in the body (Letta's) or the query.
     */
    private void recompile(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        Target t = target(caller, req, body.string("agent_id"));
        Query.bool(req, "dry_run", false); // nothing is stored either way: a step compiles its prompt anew
        Api.json(res, Body.JSON.getNodeFactory().stringNode(t.agent().compilePrompt(t.session()).systemText()));
    }

    /**
     * Summarises the older part of the conversation's context window now and evicts it (the messages stay in recall
     * memory), as a turn does when its prompt outgrows the window: Letta's {@code CompactionResponse}. For
     * {@code default} the agent is named by {@code agent_id} in the body (Letta's) or the query. A 400 when there is
     * nothing to compact; a 409 while the agent works on a message.
     */
    private void compact(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        Target t = target(caller, req, body.string("agent_id"));
        AgentFields.compaction(body);
        if (api.turns.running(t.agent().scope()).isPresent()) {
            throw ApiException.conflict("Agent '" + t.agent().id() + "' is working on a message; cancel it or wait, "
                    + "then compact.");
        }
        Compaction done = t.agent().compact(t.session());
        Api.json(res, Body.JSON.createObjectNode().put("summary", done.summary())
                .put("num_messages_before", done.messagesBefore()).put("num_messages_after", done.messagesAfter()));
    }

    /** Letta's {@code Conversation}. */
    private ObjectNode view(Conversation c) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", c.id());
        o.put("agent_id", c.agentId());
        if (c.summary().isEmpty()) {
            o.putNull("summary");
        } else {
            o.put("summary", c.summary());
        }
        o.put("created_at", LettaViews.date(c.createdAt()));
        o.put("updated_at", LettaViews.date(c.updatedAt()));
        o.putNull("created_by_id");
        o.putNull("last_updated_by_id");
        List<ConversationMessage> inContext = api.store.messages().list(c.scope(),
                MessageQuery.inContext().withSession(c.id()).withLimit(100_000));
        inContext.forEach(m -> o.withArray("in_context_message_ids").add(Ids.message(m.id())));
        o.withArray("in_context_message_ids");
        o.putArray("isolated_block_ids");
        o.putNull("model");
        o.putNull("model_settings");
        List<ConversationMessage> last = api.store.messages().list(c.scope(), MessageQuery.all().withSession(c.id()).newest(1));
        if (last.isEmpty()) {
            o.putNull("last_message_at");
        } else {
            o.put("last_message_at", LettaViews.date(last.getFirst().createdAt()));
        }
        return o;
    }
}
