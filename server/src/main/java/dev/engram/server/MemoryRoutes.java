package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Block;
import dev.engram.memory.BlockStore;
import dev.engram.memory.BlockUpdate;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * Core memory ({@code /v1/agents/{id}/core-memory/blocks}), standalone blocks ({@code /v1/blocks}) and
 * archival memory ({@code /v1/agents/{id}/archival-memory}). A standalone block is kept by its user's
 * block holder ({@link Ids#BLOCK_HOLDER}) and shared with the agents it is attached to; changing it through
 * any of them changes it for all.
 */
final class MemoryRoutes {
    private final Api api;

    MemoryRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return List.of(
                Route.agent(api, GET, "/v1/agents/{agent_id}/core-memory/blocks", this::agentBlocks),
                Route.agent(api, PATCH, "/v1/agents/{agent_id}/core-memory/blocks/attach/{block_id}", this::attach),
                Route.agent(api, PATCH, "/v1/agents/{agent_id}/core-memory/blocks/detach/{block_id}", this::detach),
                Route.agent(api, GET, "/v1/agents/{agent_id}/core-memory/blocks/{block_label}", this::agentBlock),
                Route.agent(api, PATCH, "/v1/agents/{agent_id}/core-memory/blocks/{block_label}", this::modifyAgentBlock),
                Route.caller(GET, "/v1/blocks", this::listBlocks),
                Route.caller(GET, "/v1/blocks/", this::listBlocks),
                Route.caller(POST, "/v1/blocks", this::createBlock),
                Route.caller(POST, "/v1/blocks/", this::createBlock),
                Route.caller(GET, "/v1/blocks/{block_id}", this::block),
                Route.caller(PATCH, "/v1/blocks/{block_id}", this::modifyBlock),
                Route.caller(DELETE, "/v1/blocks/{block_id}", this::deleteBlock),
                Route.agent(api, GET, "/v1/agents/{agent_id}/archival-memory/search", this::searchPassages),
                Route.agent(api, GET, "/v1/agents/{agent_id}/archival-memory", this::listPassages),
                Route.agent(api, POST, "/v1/agents/{agent_id}/archival-memory", this::createPassage),
                Route.agent(api, DELETE, "/v1/agents/{agent_id}/archival-memory/{memory_id}", this::deletePassage));
    }

    // ---- an agent's blocks ----------------------------------------------------------------------------

    private void agentBlocks(Agent agent, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 100, false);
        List<Block> blocks = new ArrayList<>(api.store.blocks().list(agent.scope()));
        blocks.sort(Comparator.comparing(Block::createdAt).thenComparing(Block::label));
        Api.json(res, pages.page(blocks, b -> Ids.block(b.ownerAgentId(), b.label()), "block").stream()
                .map(LettaViews::block).toList());
    }

    private void agentBlock(Agent agent, ServerRequest req, ServerResponse res) {
        Api.json(res, LettaViews.block(agentBlock(agent, label(req))));
    }

    private Block agentBlock(Agent agent, String label) {
        return api.store.blocks().get(agent.scope(), label)
                .orElseThrow(() -> ApiException.notFound("Block with label '" + label + "' not found for agent '" + agent.id() + "'."));
    }

    private static String label(ServerRequest req) {
        return req.path().pathParameters().get("block_label");
    }

    private void modifyAgentBlock(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        Block block = agentBlock(agent, label(req));
        Api.json(res, LettaViews.block(update(agent.scope(), block, body)));
    }

    /**
     * Applies a {@code BlockUpdate} body: value, limit, description and {@code read_only} in one write, then
     * a new label if one is given. Checked before anything is written: a bad value changes nothing.
     */
    private Block update(Scope viewer, Block block, Body body) {
        BlockUpdate change = BlockUpdate.of(block);
        Optional<String> value = body.string("value");
        Optional<Integer> limit = body.integer("limit");
        if (limit.isPresent() && limit.get() < 1) {
            throw body.problem("greater_than", "Input should be greater than 0", "limit");
        }
        String newValue = value.orElse(block.value());
        int newLimit = limit.orElse(block.limit());
        if (newValue.codePointCount(0, newValue.length()) > newLimit) {
            throw body.problem("value_error", "Edit failed: the value has " + newValue.codePointCount(0, newValue.length())
                    + " characters, more than the block's limit of " + newLimit, value.isPresent() ? "value" : "limit");
        }
        Optional<String> label = body.string("label").filter(l -> !l.equals(block.label()));
        if (label.isPresent() && !block.ownerAgentId().equals(viewer.agentId())) {
            throw body.problem("value_error", "Only the agent that owns a shared block renames it", "label");
        }
        if (label.isPresent() && label.get().isBlank()) {
            throw body.problem("value_error", "A label must not be blank", "label");
        }
        change = change.withValue(newValue).withLimit(newLimit);
        change = body.string("description").map(change::withDescription).orElse(change);
        if (body.has("read_only")) {
            boolean readOnly = body.bool("read_only").orElseThrow();
            if (readOnly != (block.permission() == MemoryPermission.READ_ONLY)) {
                change = change.withPermission(readOnly ? MemoryPermission.READ_ONLY : MemoryPermission.READ_WRITE);
            }
        }
        Block updated = change.equals(BlockUpdate.of(block)) ? block
                : api.store.blocks().update(viewer, block.label(), change, BlockStore.ANY_VERSION);
        if (label.isPresent()) {
            updated = api.store.blocks().rename(Scope.of(viewer.userId(), block.ownerAgentId()), block.label(), label.get(),
                    BlockStore.ANY_VERSION);
        }
        return updated;
    }

    private void attach(Agent agent, ServerRequest req, ServerResponse res) {
        Block block = api.block(agent.userId(), req.path().pathParameters().get("block_id"));
        if (!block.ownerAgentId().equals(agent.id())) {
            Optional<Block> same = api.store.blocks().get(agent.scope(), block.label());
            if (same.isPresent() && !same.get().ownerAgentId().equals(block.ownerAgentId())) {
                throw ApiException.conflict("Agent '" + agent.id() + "' already has a block labelled '" + block.label()
                        + "'; an agent sees one block per label.");
            }
            api.store.blocks().share(Scope.of(agent.userId(), block.ownerAgentId()), block.label(), agent.id(), block.permission());
        }
        Api.json(res, api.agentState(agent));
    }

    private void detach(Agent agent, ServerRequest req, ServerResponse res) {
        Block block = api.block(agent.userId(), req.path().pathParameters().get("block_id"));
        if (block.ownerAgentId().equals(agent.id())) {
            throw ApiException.badRequest("Block '" + block.label() + "' is agent '" + agent.id() + "''s own; it cannot be "
                    + "detached from it (delete it instead).");
        }
        if (!api.store.blocks().unshare(Scope.of(agent.userId(), block.ownerAgentId()), block.label(), agent.id())) {
            throw ApiException.notFound("Block '" + req.path().pathParameters().get("block_id") + "' is not attached to agent '"
                    + agent.id() + "'.");
        }
        Api.json(res, api.agentState(agent));
    }

    // ---- standalone blocks ------------------------------------------------------------------------------

    private void createBlock(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        NewBlock block = AgentRoutes.newBlock(body);
        String user = caller.user().orElse(Api.DEFAULT_USER);
        Scope holder = Scope.of(user, Ids.BLOCK_HOLDER);
        if (api.store.blocks().get(holder, block.label()).isPresent()) {
            throw ApiException.conflict("A standalone block labelled '" + block.label() + "' exists: Engram keeps one per label "
                    + "and user (an agent sees one block per label); update it, or choose another label.");
        }
        Api.json(res, LettaViews.block(api.store.blocks().create(holder, block)));
    }

    /** Every block of the caller's users: the standalone ones and each agent's own, oldest first. */
    private void listBlocks(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, true);
        Optional<String> label = Query.string(req, "label");
        Optional<String> search = Query.string(req, "label_search");
        Set<String> seen = new LinkedHashSet<>();
        List<Block> blocks = new ArrayList<>();
        for (String user : api.users(caller)) {
            List<String> owners = new ArrayList<>();
            owners.add(Ids.BLOCK_HOLDER);
            api.store.agents().list(user).forEach(a -> owners.add(a.scope().agentId()));
            for (String owner : owners) {
                for (Block b : api.store.blocks().list(Scope.of(user, owner))) {
                    if (b.ownerAgentId().equals(owner) && seen.add(user + "/" + owner + "/" + b.label())) {
                        blocks.add(b);
                    }
                }
            }
        }
        blocks.removeIf(b -> label.map(l -> !l.equals(b.label())).orElse(false)
                || search.map(s -> !b.label().contains(s)).orElse(false));
        blocks.sort(Comparator.comparing(Block::createdAt).thenComparing(b -> Ids.block(b.ownerAgentId(), b.label())));
        Api.json(res, pages.page(blocks, b -> Ids.block(b.ownerAgentId(), b.label()), "block").stream()
                .map(LettaViews::block).toList());
    }

    private void block(Caller caller, ServerRequest req, ServerResponse res) {
        String blockId = req.path().pathParameters().get("block_id");
        Api.json(res, LettaViews.block(api.block(api.userOfBlock(caller, blockId), blockId)));
    }

    private void modifyBlock(Caller caller, ServerRequest req, ServerResponse res) {
        String blockId = req.path().pathParameters().get("block_id");
        String user = api.userOfBlock(caller, blockId);
        Block block = api.block(user, blockId);
        Body body = Api.body(req);
        Api.json(res, LettaViews.block(update(Scope.of(user, block.ownerAgentId()), block, body)));
    }

    private void deleteBlock(Caller caller, ServerRequest req, ServerResponse res) {
        String blockId = req.path().pathParameters().get("block_id");
        String user = api.userOfBlock(caller, blockId);
        Block block = api.block(user, blockId);
        api.store.blocks().delete(Scope.of(user, block.ownerAgentId()), block.label(), BlockStore.ANY_VERSION);
        Api.json(res, Body.JSON.createObjectNode());
    }

    // ---- archival memory --------------------------------------------------------------------------------

    private void listPassages(Agent agent, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 100, true);
        Optional<String> search = Query.string(req, "search");
        long count = api.store.archival().count(agent.scope());
        List<ArchivalEntry> entries = new ArrayList<>(count == 0 ? List.of()
                : api.store.archival().list(agent.scope(), 0, (int) Math.min(count, Integer.MAX_VALUE)));
        entries.sort(Comparator.comparing(ArchivalEntry::createdAt).thenComparing(ArchivalEntry::id));
        search.ifPresent(s -> entries.removeIf(e -> !e.content().toLowerCase(java.util.Locale.ROOT)
                .contains(s.toLowerCase(java.util.Locale.ROOT))));
        Api.json(res, pages.page(entries, ArchivalEntry::id, "passage").stream()
                .map(e -> LettaViews.passage(e, agent.id())).toList());
    }

    private void createPassage(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String text = body.requiredString("text");
        if (text.isBlank()) {
            throw body.problem("value_error", "The text is empty", "text");
        }
        List<String> tags = body.strings("tags").orElse(List.of());
        ArchivalEntry entry;
        try {
            entry = api.store.archival().insert(agent.scope(), new NewArchivalEntry(Optional.empty(), text, tags));
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", Incidents.clientText(e, "a passage"), "text");
        }
        Api.json(res, List.of(LettaViews.passage(entry, agent.id())));
    }

    private void deletePassage(Agent agent, ServerRequest req, ServerResponse res) {
        String id = req.path().pathParameters().get("memory_id");
        if (!api.store.archival().delete(agent.scope(), id)) {
            throw ApiException.notFound("Passage '" + id + "' not found.");
        }
        Api.json(res, Body.JSON.createObjectNode());
    }

    private void searchPassages(Agent agent, ServerRequest req, ServerResponse res) {
        String query = Query.string(req, "query").orElseThrow(() -> ApiException.invalid("missing", "Field required",
                "query", "query"));
        int k = Query.integer(req, "top_k", 1, SearchRequest.MAX_K).orElse(10);
        SearchRequest.Builder search = SearchRequest.builder(agent.scope(), query).domains(SearchDomain.ARCHIVAL).k(k);
        time(req, "start_datetime").ifPresent(search::from);
        time(req, "end_datetime").ifPresent(search::until);
        Set<String> tags = new LinkedHashSet<>(Query.all(req, "tags"));
        boolean allTags = Query.string(req, "tag_match_mode").map(m -> switch (m) {
            case "any" -> false;
            case "all" -> true;
            default -> throw ApiException.invalid("literal_error", "Input should be 'any' or 'all'", "query", "tag_match_mode");
        }).orElse(false);
        if (!tags.isEmpty() && !allTags) {
            search.tags(tags);
        }
        api.runtime.search().awaitIndexed();
        List<ObjectNode> results = new ArrayList<>();
        for (SearchHit hit : api.runtime.search().search(search.build())) {
            Optional<ArchivalEntry> entry = api.store.archival().get(agent.scope(), hit.id());
            if (entry.isEmpty() || (allTags && !entry.get().tags().containsAll(tags))) {
                continue;
            }
            ObjectNode o = Body.JSON.createObjectNode();
            o.put("id", entry.get().id());
            o.put("timestamp", LettaViews.date(entry.get().createdAt()));
            o.put("content", entry.get().content());
            entry.get().tags().forEach(o.withArray("tags")::add);
            o.withArray("tags");
            results.add(o);
        }
        ObjectNode out = Body.JSON.createObjectNode();
        out.set("results", Body.JSON.createArrayNode().addAll(results));
        out.put("count", results.size());
        Api.json(res, out);
    }

    private static Optional<Instant> time(ServerRequest req, String name) {
        return Query.string(req, name).map(v -> {
            try {
                return java.time.OffsetDateTime.parse(v).toInstant();
            } catch (DateTimeParseException e) {
                try {
                    return java.time.LocalDateTime.parse(v).toInstant(java.time.ZoneOffset.UTC);
                } catch (DateTimeParseException e2) {
                    throw ApiException.invalid("datetime_parsing", "Input should be a valid datetime (ISO 8601)", "query", name);
                }
            }
        });
    }
}
