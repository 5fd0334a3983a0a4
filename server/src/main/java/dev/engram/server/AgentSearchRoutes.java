package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.memory.AgentRecord;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Letta's agent search ({@code POST /v1/agents/search}, {@code GET /v1/agents/search/count}) over the caller's agents.
 * The {@code search} terms, all of which an agent must match ({@code combinator} {@code AND}): {@code name} ({@code eq}
 * or {@code contains}), {@code tags} ({@code contains}: the agent has every tag named), {@code identity} ({@code eq}: an
 * identity id or identifier key, that is the user), {@code agentId} ({@code eq}). Engram's agents come from no template
 * and have no versions: a {@code templateName} or {@code version} term matches no agent. Ordered by {@code sortBy}
 * ({@code created_at}, {@code updated_at}; {@code last_run_completion} orders by the last change too), {@code ascending}
 * (default false); {@code after} is an agent id from a previous page's {@code nextCursor}.
 */
final class AgentSearchRoutes {
    private static final int DEFAULT_LIMIT = 50;

    private final Api api;

    AgentSearchRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(POST, "/v1/agents/search", this::search))
                .twin(Route.caller(GET, "/v1/agents/search/count", this::count))
                .list();
    }

    private void search(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        combinator(body.string("combinator"), body.location("combinator"));
        Predicate<Found> match = terms(body.raw("search"), body.location("search"));
        int limit = body.raw("limit").map(l -> {
            if (!l.isNumber() || l.asDouble() < 1 || l.asDouble() > Pages.MAX_LIMIT) {
                throw body.problem("value_error", "Input should be a number from 1 to " + Pages.MAX_LIMIT, "limit");
            }
            return l.asInt();
        }).orElse(DEFAULT_LIMIT);
        String sortBy = body.string("sortBy").orElse("created_at");
        Comparator<Found> order = switch (sortBy) {
            case "created_at" -> Comparator.comparing((Found f) -> f.record().createdAt());
            case "updated_at", "last_run_completion" -> Comparator.comparing((Found f) -> f.record().updatedAt());
            default -> throw body.problem("enum", "Input should be 'created_at', 'last_run_completion' or 'updated_at'", "sortBy");
        };
        order = order.thenComparing(f -> f.agent().id());
        if (!body.bool("ascending").orElse(false)) {
            order = order.reversed();
        }
        List<Found> found = new ArrayList<>(found(caller).stream().filter(match).toList());
        found.sort(order);
        Optional<String> after = body.string("after");
        int from = 0;
        if (after.isPresent()) {
            from = found.stream().map(f -> f.agent().id()).toList().indexOf(after.get()) + 1;
            if (from == 0) {
                throw ApiException.notFound("The cursor names no agent with id '" + after.get() + "'.");
            }
        }
        List<Found> page = found.subList(from, Math.min(found.size(), from + limit));
        ObjectNode out = Body.JSON.createObjectNode();
        out.set("agents", Body.JSON.createArrayNode().addAll(page.stream().map(f -> api.agentState(f.agent())).toList()));
        if (from + limit < found.size()) {
            out.put("nextCursor", page.getLast().agent().id());
        } else {
            out.putNull("nextCursor");
        }
        Api.json(res, out);
    }

    /** {@code search} in the query: a JSON array of terms, or each term as its own JSON object (a repeated parameter). */
    private void count(Caller caller, ServerRequest req, ServerResponse res) {
        combinator(Query.string(req, "combinator"), List.of("query", "combinator"));
        List<String> raw = Query.all(req, "search");
        JsonNode terms;
        try {
            if (raw.size() == 1 && raw.getFirst().strip().startsWith("[")) {
                terms = Body.JSON.readTree(raw.getFirst());
            } else {
                terms = Body.JSON.createArrayNode();
                for (String term : raw) {
                    ((ArrayNode) terms).add(Body.JSON.readTree(term));
                }
            }
        } catch (JacksonException e) {
            throw ApiException.invalid("json_invalid", "search is a JSON array of terms, such as "
                    + "[{\"field\": \"name\", \"operator\": \"eq\", \"value\": \"helper\"}]", "query", "search");
        }
        Predicate<Found> match = terms(raw.isEmpty() ? Optional.empty() : Optional.of(terms), List.of("query", "search"));
        Api.json(res, Body.JSON.createObjectNode().put("count", found(caller).stream().filter(match).count()));
    }

    private static void combinator(Optional<String> combinator, List<String> at) {
        if (combinator.isPresent() && !combinator.get().equals("AND")) {
            throw ApiException.invalid(List.of(new ApiException.Problem("enum", "Input should be 'AND'", at)));
        }
    }

    /** An agent with its record (for its times). */
    private record Found(Agent agent, AgentRecord record) {
    }

    /** The caller's agents, not sleep-time companions. */
    private List<Found> found(Caller caller) {
        List<Found> out = new ArrayList<>();
        for (String user : api.users(caller)) {
            for (AgentRecord r : api.store.agents().list(user)) {
                Agent agent = api.runtime.current(user, r.scope().agentId());
                if (agent.definition().actsFor().isEmpty()) {
                    out.add(new Found(agent, r));
                }
            }
        }
        return out;
    }

    /** The conjunction of the terms; a 422 naming the term for one that is not Letta's. */
    private static Predicate<Found> terms(Optional<JsonNode> search, List<String> at) {
        Predicate<Found> all = f -> true;
        if (search.isEmpty() || search.get().isNull()) {
            return all;
        }
        if (!search.get().isArray()) {
            throw ApiException.invalid(List.of(new ApiException.Problem("list_type", "Input should be a valid list", at)));
        }
        for (int i = 0; i < search.get().size(); i++) {
            List<String> here = new ArrayList<>(at);
            here.add(String.valueOf(i));
            all = all.and(term(Body.of(search.get().get(i), here)));
        }
        return all;
    }

    private static Predicate<Found> term(Body term) {
        String field = term.requiredString("field");
        Map<String, List<String>> operators = Map.of("name", List.of("eq", "contains"), "tags", List.of("contains"),
                "identity", List.of("eq"), "agentId", List.of("eq"), "templateName", List.of("eq"), "version", List.of());
        if (!operators.containsKey(field)) {
            throw term.problem("enum", "Input should be 'name', 'tags', 'identity', 'agentId', 'templateName' or 'version'",
                    "field");
        }
        String operator = field.equals("version") ? "eq" : term.requiredString("operator");
        if (!field.equals("version") && !operators.get(field).contains(operator)) {
            throw term.problem("enum", "A '" + field + "' term's operator is " + String.join(" or ", operators.get(field)),
                    "operator");
        }
        if (field.equals("tags")) {
            List<String> tags = term.strings("value").orElseThrow(() -> term.problem("missing", "Field required", "value"));
            return f -> f.agent().definition().tags().containsAll(tags);
        }
        String value = term.requiredString("value");
        return switch (field) {
            case "name" -> f -> operator.equals("eq") ? f.agent().definition().name().equals(value)
                    : f.agent().definition().name().contains(value);
            case "identity" -> f -> f.agent().userId().equals(value) || Identities.id(f.agent().userId()).equals(value);
            case "agentId" -> f -> f.agent().id().equals(value);
            default -> f -> false; // templateName, version: Engram's agents have neither
        };
    }
}
