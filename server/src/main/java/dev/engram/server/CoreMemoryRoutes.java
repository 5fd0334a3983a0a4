package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;

import dev.engram.agents.Agent;
import dev.engram.memory.Block;
import dev.engram.memory.Scope;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * An agent's core memory ({@code /v1/agents/{id}/core-memory/blocks}): its blocks, each by label, and attaching or
 * detaching a standalone block ({@link BlockRoutes}), which the agent then shares with the others it is attached to.
 */
final class CoreMemoryRoutes {
    private final Api api;

    CoreMemoryRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return List.of(
                Route.agent(api, GET, "/v1/agents/{agent_id}/core-memory/blocks", this::agentBlocks),
                Route.agent(api, PATCH, "/v1/agents/{agent_id}/core-memory/blocks/attach/{block_id}", this::attach),
                Route.agent(api, PATCH, "/v1/agents/{agent_id}/core-memory/blocks/detach/{block_id}", this::detach),
                Route.agent(api, GET, "/v1/agents/{agent_id}/core-memory/blocks/{block_label}", this::agentBlock),
                Route.agent(api, PATCH, "/v1/agents/{agent_id}/core-memory/blocks/{block_label}", this::modifyAgentBlock));
    }

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
        Api.json(res, LettaViews.block(BlockRoutes.update(api, agent.scope(), block, body)));
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
}
