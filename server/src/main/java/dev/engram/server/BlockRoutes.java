package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.memory.Block;
import dev.engram.memory.BlockStore;
import dev.engram.memory.BlockUpdate;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Standalone blocks ({@code /v1/blocks}). A standalone block is kept by its user's block holder
 * ({@link Ids#BLOCK_HOLDER}) and shared with the agents it is attached to ({@link CoreMemoryRoutes}); changing it
 * through any of them changes it for all.
 */
final class BlockRoutes {
    private final Api api;

    BlockRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/blocks", this::listBlocks))
                .twin(Route.caller(POST, "/v1/blocks", this::createBlock))
                .add(Route.caller(GET, "/v1/blocks/{block_id}", this::block))
                .add(Route.caller(PATCH, "/v1/blocks/{block_id}", this::modifyBlock))
                .add(Route.caller(DELETE, "/v1/blocks/{block_id}", this::deleteBlock))
                .list();
    }

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
        List<Block> blocks = blocks(caller, Query.string(req, "label"), Query.string(req, "label_search"));
        Api.json(res, pages.page(blocks, b -> Ids.block(b.ownerAgentId(), b.label()), "block").stream()
                .map(LettaViews::block).toList());
    }

    /**
     * The caller's users' blocks (standalone and each agent's own) with that label, or whose label contains {@code search},
     * oldest first ({@code GET /v1/blocks/count} counts them).
     */
    List<Block> blocks(Caller caller, Optional<String> label, Optional<String> search) {
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
        return blocks;
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
        Api.json(res, LettaViews.block(update(api, Scope.of(user, block.ownerAgentId()), block, body)));
    }

    private void deleteBlock(Caller caller, ServerRequest req, ServerResponse res) {
        String blockId = req.path().pathParameters().get("block_id");
        String user = api.userOfBlock(caller, blockId);
        Block block = api.block(user, blockId);
        api.store.blocks().delete(Scope.of(user, block.ownerAgentId()), block.label(), BlockStore.ANY_VERSION);
        Api.json(res, Body.JSON.createObjectNode());
    }

    /**
     * Applies a {@code BlockUpdate} body: value, limit, description and {@code read_only} in one write, then
     * a new label if one is given. Checked before anything is written: a bad value changes nothing.
     */
    static Block update(Api api, Scope viewer, Block block, Body body) {
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
}
