package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.memory.AgentRecord;
import dev.engram.memory.Conversation;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Recall memory across the caller's agents: {@code GET /v1/messages/} (their stored messages by id cursor, newest first
 * by default, as Letta's messages with each one's {@code agent_id}; {@code limit} counts stored messages),
 * {@code POST /v1/agents/messages/search} (Letta's {@code MessageSearchResult}: the raw message, its rank in the BM25 and
 * vector lists and the fused score; without a {@code query}, the newest messages that match the filters) and
 * {@code POST /v1/messages/search} (the same hits as Letta's message list results). A search runs Engram's hybrid search
 * of each agent's conversation messages ({@code search_mode} {@code fts} is BM25 alone, {@code vector} the embeddings
 * alone) and keeps the best {@code limit} by score.
 */
final class MessageSearchRoutes {
    private static final int MAX_RESULTS = 100;

    private final Api api;

    MessageSearchRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/messages", this::list))
                .twin(Route.caller(POST, "/v1/messages/search", this::searchAll))
                .twin(Route.caller(POST, "/v1/agents/messages/search", this::search))
                .list();
    }

    /** A message found, with its hit when a query found it. */
    private record Found(ConversationMessage message, Optional<SearchHit> hit) {
        double score() {
            return hit.map(SearchHit::score).orElse(0.0);
        }
    }

    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 100, false);
        TurnViews.messageTypes(Query.all(req, "include_return_message_types"), List.of("query", "include_return_message_types"));
        TurnViews.View view = new TurnViews.View(Query.bool(req, "use_assistant_message", true),
                Query.all(req, "include_return_message_types").isEmpty() ? Optional.empty()
                        : Optional.of(Set.copyOf(Query.all(req, "include_return_message_types"))));
        Optional<String> session = Query.string(req, "conversation_id").map(c -> conversation(caller, c));
        long after = pages.after().map(id -> Ids.message(id, "The cursor")).orElse(pages.ascending() ? 0L : Long.MAX_VALUE);
        long before = pages.before().map(id -> Ids.message(id, "The cursor")).orElse(pages.ascending() ? Long.MAX_VALUE : 0L);
        long lower = pages.ascending() ? after : before;
        long upper = pages.ascending() ? before : after;
        boolean newest = pages.ascending() == (pages.before().isPresent() && pages.after().isEmpty());
        List<ConversationMessage> stored = new ArrayList<>();
        for (Agent agent : agents(caller, Optional.empty())) {
            MessageQuery query = MessageQuery.all().withIdRange(lower, upper);
            query = session.map(query::withSession).orElse(query);
            stored.addAll(api.store.messages().list(agent.scope(), newest ? query.newest(pages.limit()) : query.withLimit(pages.limit())));
        }
        stored.sort(Comparator.comparingLong(ConversationMessage::id));
        List<ConversationMessage> page = newest ? stored.subList(Math.max(0, stored.size() - pages.limit()), stored.size())
                : stored.subList(0, Math.min(stored.size(), pages.limit()));
        // One view of the whole page, so that a call and its result in it show together (an assistant_message for what
        // reached the user); call ids are unique, so the agents' messages do not mix.
        Map<String, String> agentOf = new HashMap<>();
        page.forEach(m -> agentOf.put(Ids.message(m.id()), m.agentId()));
        List<ObjectNode> out = new ArrayList<>(view.of(page));
        out.forEach(o -> o.put("agent_id", agentOf.get(o.path("id").asString())));
        if (!pages.ascending()) {
            java.util.Collections.reverse(out);
        }
        Api.json(res, out);
    }

    /** {@code POST /v1/agents/messages/search}: Letta's {@code MessageSearchResult}s. */
    private void search(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        List<ObjectNode> out = new ArrayList<>();
        for (Found f : find(caller, body, body.string("query"), roles(body))) {
            ObjectNode o = Body.JSON.createObjectNode();
            o.put("embedded_text", f.message().content());
            o.set("message", message(f.message()));
            f.hit().flatMap(SearchHit::bm25).ifPresentOrElse(c -> o.put("fts_rank", c.rank()), () -> o.putNull("fts_rank"));
            f.hit().flatMap(SearchHit::vector).ifPresentOrElse(c -> o.put("vector_rank", c.rank()), () -> o.putNull("vector_rank"));
            o.put("rrf_score", f.score());
            out.add(o);
        }
        Api.json(res, out);
    }

    /** {@code POST /v1/messages/search}: the hits as Letta's system, user, reasoning and assistant message results. */
    private void searchAll(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String query = body.requiredString("query");
        List<ObjectNode> out = new ArrayList<>();
        for (Found f : find(caller, body, Optional.of(query), Set.of())) {
            ConversationMessage m = f.message();
            for (ObjectNode letta : LettaViews.messages(List.of(m), true)) {
                String type = letta.path("message_type").asString();
                if (!List.of("system_message", "user_message", "reasoning_message", "assistant_message").contains(type)) {
                    continue;
                }
                ObjectNode o = Body.JSON.createObjectNode().put("message_type", type);
                if (type.equals("reasoning_message")) {
                    o.put("reasoning", letta.path("reasoning").asString());
                } else {
                    o.set("content", letta.path("content"));
                }
                o.put("message_id", Ids.message(m.id())).put("agent_id", m.agentId());
                conversationOf(m).ifPresentOrElse(c -> o.put("conversation_id", c), () -> o.putNull("conversation_id"));
                o.put("created_at", LettaViews.date(m.createdAt()));
                out.add(o);
            }
        }
        Api.json(res, out);
    }

    /** The messages a search body selects, best first (newest first without a query), at most its {@code limit}. */
    private List<Found> find(Caller caller, Body body, Optional<String> query, Set<MessageRole> roles) {
        int limit = body.integer("limit").orElse(50);
        if (limit < 1 || limit > MAX_RESULTS) {
            throw body.problem("value_error", "Input should be between 1 and " + MAX_RESULTS, "limit");
        }
        SearchMode mode = switch (body.string("search_mode").orElse("hybrid")) {
            case "hybrid" -> SearchMode.HYBRID;
            case "fts" -> SearchMode.BM25;
            case "vector" -> SearchMode.VECTOR;
            default -> throw body.problem("enum", "Input should be 'vector', 'fts' or 'hybrid'", "search_mode");
        };
        Optional<Instant> from = date(body, "start_date");
        Optional<Instant> until = date(body, "end_date").map(t -> t.plusNanos(1_000)); // Letta's end is inclusive
        Optional<String> session = body.string("conversation_id").map(c -> conversation(caller, c));
        if (query.isPresent() && query.get().isBlank()) {
            throw body.problem("value_error", "The query is empty", "query");
        }
        List<Agent> agents = agents(caller, body.string("agent_id"));
        List<Found> found = new ArrayList<>();
        for (Agent agent : agents) {
            if (query.isEmpty()) {
                newest(agent, from, until, session, roles, limit).forEach(m -> found.add(new Found(m, Optional.empty())));
                continue;
            }
            SearchRequest.Builder search = SearchRequest.builder(agent.scope(), query.get()).domains(SearchDomain.CONVERSATIONS)
                    .mode(mode).k(session.isPresent() ? SearchRequest.MAX_K : limit);
            from.ifPresent(search::from);
            until.ifPresent(search::until);
            if (!roles.isEmpty()) {
                search.roles(roles);
            }
            SearchRequest request = build(body, search);
            api.runtime.search().awaitIndexed();
            for (SearchHit hit : api.runtime.search().search(request)) {
                api.store.messages().get(agent.scope(), Long.parseLong(hit.id()))
                        .filter(m -> session.map(s -> s.equals(m.sessionId())).orElse(true))
                        .ifPresent(m -> found.add(new Found(m, Optional.of(hit))));
            }
        }
        Comparator<Found> order = query.isPresent() ? Comparator.comparingDouble(Found::score).reversed()
                : Comparator.comparing((Found f) -> f.message().id()).reversed();
        found.sort(order);
        return found.subList(0, Math.min(limit, found.size()));
    }

    /** The agent's newest {@code limit} messages in the time range, session and roles, read newest first in pages. */
    private List<ConversationMessage> newest(Agent agent, Optional<Instant> from, Optional<Instant> until,
            Optional<String> session, Set<MessageRole> roles, int limit) {
        List<ConversationMessage> out = new ArrayList<>();
        long upper = Long.MAX_VALUE;
        while (out.size() < limit) {
            MessageQuery q = MessageQuery.all().withTimeRange(from.orElse(SearchRequest.EARLIEST), until.orElse(SearchRequest.LATEST))
                    .withIdRange(0, upper);
            q = session.map(q::withSession).orElse(q);
            List<ConversationMessage> page = api.store.messages().list(agent.scope(), q.newest(MAX_RESULTS));
            if (page.isEmpty()) {
                break;
            }
            for (int i = page.size() - 1; i >= 0 && out.size() < limit; i--) {
                if (roles.isEmpty() || roles.contains(page.get(i).role())) {
                    out.add(page.get(i));
                }
            }
            upper = page.getFirst().id();
        }
        return out;
    }

    private static SearchRequest build(Body body, SearchRequest.Builder search) {
        try {
            return search.build();
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", Incidents.clientText(e, "a search"), "query");
        }
    }

    /** The caller's agents (not sleep-time companions), or the one {@code agentId} names (a 404 for anyone else's). */
    private List<Agent> agents(Caller caller, Optional<String> agentId) {
        if (agentId.isPresent()) {
            return List.of(api.agent(caller, agentId.get()));
        }
        List<Agent> out = new ArrayList<>();
        for (String user : api.users(caller)) {
            for (AgentRecord r : api.store.agents().list(user)) {
                Agent agent = api.runtime.current(user, r.scope().agentId());
                if (agent.definition().actsFor().isEmpty()) {
                    out.add(agent);
                }
            }
        }
        return out;
    }

    /** The session of the caller's conversation of that id; a 404 for anyone else's. */
    private String conversation(Caller caller, String id) {
        for (String user : api.users(caller)) {
            if (api.store.conversations().get(user, id).isPresent()) {
                return id;
            }
        }
        throw ApiException.notFound("Conversation '" + id + "' not found.");
    }

    private static Set<MessageRole> roles(Body body) {
        Set<MessageRole> roles = EnumSet.noneOf(MessageRole.class);
        List<String> names = body.strings("roles").orElse(List.of());
        for (int i = 0; i < names.size(); i++) {
            switch (names.get(i)) {
                case "user" -> roles.add(MessageRole.USER);
                case "assistant" -> roles.add(MessageRole.ASSISTANT);
                case "system" -> roles.add(MessageRole.SYSTEM);
                case "tool" -> roles.add(MessageRole.TOOL);
                default -> throw body.problem("enum", "Input should be 'assistant', 'user', 'tool' or 'system'", "roles",
                        String.valueOf(i));
            }
        }
        return roles;
    }

    /** A date-time field of a body (ISO 8601, with or without an offset; UTC without); a 422 naming it otherwise. */
    static Optional<Instant> date(Body body, String field) {
        return body.string(field).map(v -> {
            try {
                return OffsetDateTime.parse(v).toInstant();
            } catch (DateTimeParseException e) {
                try {
                    return java.time.LocalDateTime.parse(v).toInstant(java.time.ZoneOffset.UTC);
                } catch (DateTimeParseException e2) {
                    throw body.problem("datetime_parsing", "Input should be a valid datetime (ISO 8601)", field);
                }
            }
        });
    }

    private static Optional<String> conversationOf(ConversationMessage m) {
        return Conversation.isConversationSession(m.sessionId()) ? Optional.of(m.sessionId()) : Optional.empty();
    }

    /** Letta's raw {@code Message}. */
    static ObjectNode message(ConversationMessage m) {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", Ids.message(m.id()));
        o.put("agent_id", m.agentId());
        o.put("role", m.role().name().toLowerCase(Locale.ROOT));
        ArrayNode content = o.putArray("content");
        if (!m.content().isEmpty()) {
            content.addObject().put("type", "text").put("text", m.content());
        }
        if (m.toolCalls().isEmpty()) {
            o.putNull("tool_calls");
        } else {
            ArrayNode calls = o.putArray("tool_calls");
            for (MessageToolCall c : m.toolCalls()) {
                calls.addObject().put("id", c.id()).put("type", "function").putObject("function").put("name", c.name())
                        .put("arguments", c.arguments());
            }
        }
        m.toolCallId().ifPresentOrElse(id -> o.put("tool_call_id", id), () -> o.putNull("tool_call_id"));
        conversationOf(m).ifPresentOrElse(c -> o.put("conversation_id", c), () -> o.putNull("conversation_id"));
        o.put("created_at", LettaViews.date(m.createdAt()));
        for (String absent : List.of("name", "model", "step_id", "run_id", "otid", "group_id", "sender_id", "batch_item_id")) {
            o.putNull(absent);
        }
        o.put("is_err", m.toolOutcome().map(t -> t.failed()).orElse(false));
        return o;
    }
}
