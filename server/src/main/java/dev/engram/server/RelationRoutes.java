package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PUT;

import dev.engram.agents.Agent;
import dev.engram.memory.AgentRecord;
import dev.engram.memory.Block;
import dev.engram.memory.Identity;
import dev.engram.memory.Scope;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * Counts and relations between the caller's things: {@code GET /v1/blocks/count},
 * {@code /v1/identities/count}; the agents that see a block ({@code GET /v1/blocks/{block_id}/agents}); an identity's
 * agents and blocks ({@code GET /v1/identities/{identity_id}/agents|blocks}: an identity is a user, its agents are the
 * user's agents and its blocks the user's standalone blocks) and its properties, replaced whole
 * ({@code PUT /v1/identities/{identity_id}/properties}, a list of {@code {key, value, type}}); and the tags of the caller's agents ({@code GET /v1/tags/}).
 * Registered before the route classes whose {@code /{id}} patterns would otherwise take {@code count}.
 */
final class RelationRoutes {
    private final Api api;

    RelationRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/blocks/count", this::countBlocks))
                .twin(Route.caller(GET, "/v1/identities/count", this::countIdentities))
                .twin(Route.caller(GET, "/v1/tags", this::tags))
                .add(Route.caller(GET, "/v1/blocks/{block_id}/agents", this::blockAgents))
                .add(Route.caller(GET, "/v1/identities/{identity_id}/agents", this::identityAgents))
                .add(Route.caller(GET, "/v1/identities/{identity_id}/blocks", this::identityBlocks))
                .add(Route.caller(PUT, "/v1/identities/{identity_id}/properties", this::identityProperties))
                .list();
    }

    /**
     * The blocks {@code GET /v1/blocks/} lists for the caller with that {@code label}. Engram's blocks have no template,
     * name or tags: asking for templates only, a name or tags counts none.
     */
    private void countBlocks(Caller caller, ServerRequest req, ServerResponse res) {
        boolean noneMatch = Query.bool(req, "templates_only", false) || Query.string(req, "name").isPresent()
                || !Query.all(req, "tags").isEmpty();
        Query.bool(req, "match_all_tags", false);
        int count = noneMatch ? 0 : new BlockRoutes(api).blocks(caller, Query.string(req, "label"), Optional.empty()).size();
        Api.json(res, Body.JSON.getNodeFactory().numberNode(count));
    }

    private void countIdentities(Caller caller, ServerRequest req, ServerResponse res) {
        long count = api.store.identities().list().stream().filter(i -> caller.sees(i.userId())).count();
        Api.json(res, Body.JSON.getNodeFactory().numberNode(count));
    }

    /**
     * The tags of the caller's agents, alphabetical ({@code order=desc}: reversed), those containing {@code name}
     * (or the older {@code query_text}) only; {@code after} and {@code before} are tags, as in Letta.
     */
    private void tags(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, true);
        Query.string(req, "order_by").filter(o -> !o.equals("name")).ifPresent(o -> {
            throw ApiException.invalid("literal_error", "Input should be 'name'", "query", "order_by");
        });
        Optional<String> text = Query.string(req, "name").or(() -> Query.string(req, "query_text"))
                .map(t -> t.toLowerCase(Locale.ROOT));
        TreeSet<String> tags = new TreeSet<>();
        for (Agent agent : agents(api.users(caller))) {
            agent.definition().tags().stream().filter(t -> text.map(x -> t.toLowerCase(Locale.ROOT).contains(x)).orElse(true))
                    .forEach(tags::add);
        }
        List<String> ordered = new ArrayList<>(pages.ascending() ? tags : tags.descendingSet());
        int sign = pages.ascending() ? 1 : -1;
        pages.after().ifPresent(a -> ordered.removeIf(t -> sign * t.compareTo(a) <= 0));
        pages.before().ifPresent(b -> ordered.removeIf(t -> sign * t.compareTo(b) >= 0));
        ArrayNode out = Body.JSON.createArrayNode();
        ordered.stream().limit(pages.limit()).forEach(out::add);
        Api.json(res, out);
    }

    /** The caller's agents that see the block: its owner (unless it is a standalone block) and those it is shared with. */
    private void blockAgents(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, false);
        String blockId = req.path().pathParameters().get("block_id");
        String user = api.userOfBlock(caller, blockId);
        Ids.BlockRef ref = Ids.block(blockId);
        List<Agent> seeing = agents(List.of(user)).stream().filter(a -> api.store.blocks().list(a.scope()).stream()
                .anyMatch(b -> b.ownerAgentId().equals(ref.ownerAgentId()) && b.label().equals(ref.label()))).toList();
        Api.json(res, pages.page(seeing, Agent::id, "agent").stream().map(api::agentState).toList());
    }

    private void identityAgents(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, false);
        Identity identity = new IdentityRoutes(api).identity(caller, req.path().pathParameters().get("identity_id"));
        Api.json(res, pages.page(agents(List.of(identity.userId())), Agent::id, "agent").stream().map(api::agentState).toList());
    }

    private void identityBlocks(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, false);
        Identity identity = new IdentityRoutes(api).identity(caller, req.path().pathParameters().get("identity_id"));
        List<Block> blocks = new ArrayList<>(api.store.blocks().list(Scope.of(identity.userId(), Ids.BLOCK_HOLDER)).stream()
                .filter(b -> b.ownerAgentId().equals(Ids.BLOCK_HOLDER)).toList());
        blocks.sort(Comparator.comparing(Block::createdAt).thenComparing(Block::label));
        Api.json(res, pages.page(blocks, b -> Ids.block(b.ownerAgentId(), b.label()), "block").stream()
                .map(LettaViews::block).toList());
    }

    /**
     * Replaces an identity's properties with the body's list of Letta's {@code IdentityProperty} ({@code key}, a
     * {@code value} of its {@code type}: {@code string}, {@code number}, {@code boolean} or {@code json} (an object));
     * a 422 naming the item for anything else, and nothing changes. Answers the identity.
     */
    private void identityProperties(Caller caller, ServerRequest req, ServerResponse res) {
        IdentityRoutes identities = new IdentityRoutes(api);
        Identity identity = identities.identity(caller, req.path().pathParameters().get("identity_id"));
        JsonNode list;
        try {
            list = Body.JSON.readTree(req.content().hasEntity() ? req.content().as(String.class) : "");
        } catch (JacksonException e) {
            throw ApiException.invalid("json_invalid", "The body is a JSON list of properties", "body");
        }
        try {
            Api.json(res, identities.view(api.store.identities().putProperties(identity.userId(),
                    IdentityProperties.checked(list, List.of("body")))));
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("value_error", Incidents.clientText(e, "an identity's properties"), "body");
        }
    }

    /** The users' agents (not sleep-time companions), oldest first. */
    private List<Agent> agents(List<String> users) {
        List<AgentRecord> records = new ArrayList<>();
        users.forEach(u -> records.addAll(api.store.agents().list(u)));
        records.sort(Comparator.comparing(AgentRecord::createdAt).thenComparing(r -> r.scope().agentId()));
        return records.stream().map(r -> api.runtime.current(r.scope().userId(), r.scope().agentId()))
                .filter(a -> a.definition().actsFor().isEmpty()).toList();
    }

    /** Repeated parameters, each possibly comma-separated, as Letta takes them. */
    private static List<String> split(List<String> values) {
        return values.stream().flatMap(v -> List.of(v.split(",")).stream()).map(String::strip).filter(v -> !v.isEmpty()).toList();
    }
}
