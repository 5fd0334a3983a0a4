package dev.engram.server;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentNotFoundException;
import dev.engram.memory.Block;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.Group;
import dev.engram.memory.GroupManager;
import dev.engram.memory.GroupSpec;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * Multi-agent groups ({@code /v1/groups}, Letta's): several of a user's agents that answer a message together under a
 * manager ({@link GroupTurns}), with blocks shared by every member. A group is made of its user's own agents only: an
 * agent id of anyone else's is a 404 and nothing is created or changed; another user's group is a 404. A bad manager
 * configuration is a 422 naming the field. The manager config is decoded by {@link GroupConfigs}.
 */
final class GroupRoutes {
    private final Api api;
    private final GroupTurns turns;

    GroupRoutes(Api api) {
        this.api = api;
        this.turns = new GroupTurns(api);
    }

    List<Route> routes() {
        return Route.table()
                .twin(Route.caller(GET, "/v1/groups", this::list))
                .twin(Route.caller(POST, "/v1/groups", this::create))
                .add(Route.caller(GET, "/v1/groups/count", this::count))
                .add(Route.caller(GET, "/v1/groups/{group_id}", this::retrieve))
                .add(Route.caller(PATCH, "/v1/groups/{group_id}", this::modify))
                .add(Route.caller(DELETE, "/v1/groups/{group_id}", this::delete))
                .add(Route.caller(POST, "/v1/groups/{group_id}/messages", this::send))
                .add(Route.caller(GET, "/v1/groups/{group_id}/messages", this::messages))
                .add(Route.caller(PATCH, "/v1/groups/{group_id}/messages/{message_id}", this::editMessage))
                .add(Route.caller(PATCH, "/v1/groups/{group_id}/reset-messages", this::reset))
                .add(Route.caller(PATCH, "/v1/groups/{group_id}/blocks/attach/{block_id}", this::attachBlock))
                .add(Route.caller(PATCH, "/v1/groups/{group_id}/blocks/detach/{block_id}", this::detachBlock))
                .add(Route.agent(api, GET, "/v1/agents/{agent_id}/groups", this::ofAgent))
                .list();
    }

    private void create(Caller caller, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        String user = caller.user().orElse(Api.DEFAULT_USER);
        List<String> agentIds = body.strings("agent_ids").orElseThrow(() -> body.problem("missing", "Field required", "agent_ids"));
        String description = body.requiredString("description");
        GroupManager manager = GroupConfigs.manager(body, Optional.empty());
        GroupSpec spec = GroupConfigs.spec(body, description, manager, agentIds,
                body.strings("shared_block_ids").orElse(List.of()), body.bool("hidden").orElse(false));
        checkAgents(user, spec);
        List<Block> blocks = spec.sharedBlockIds().stream().map(id -> api.block(user, id)).toList();
        Group group = api.store.inTransaction(tx -> {
            Group g = tx.groups().create(user, spec);
            blocks.forEach(b -> share(user, b, g.involvedAgents()));
            return g;
        });
        Api.json(res, view(group));
    }

    private void list(Caller caller, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, true);
        Optional<GroupManager.Type> type = Query.string(req, "manager_type").map(t -> GroupManager.Type.ofLettaName(t)
                .orElseThrow(() -> ApiException.invalid("enum", "manager_type should be one of round_robin, supervisor, "
                        + "dynamic, sleeptime", "query", "manager_type")));
        boolean hidden = Query.bool(req, "show_hidden_groups", false);
        List<Group> groups = new ArrayList<>();
        for (String user : api.users(caller)) {
            groups.addAll(api.store.groups().list(user));
        }
        groups.removeIf(g -> type.map(t -> g.spec().manager().type() != t).orElse(false) || g.spec().hidden() && !hidden);
        Api.json(res, page(pages, groups));
    }

    private void count(Caller caller, ServerRequest req, ServerResponse res) {
        int n = 0;
        for (String user : api.users(caller)) {
            n += api.store.groups().list(user).size();
        }
        Api.json(res, Body.JSON.getNodeFactory().numberNode(n));
    }

    private void retrieve(Caller caller, ServerRequest req, ServerResponse res) {
        Api.json(res, view(group(caller, req)));
    }

    private void modify(Caller caller, ServerRequest req, ServerResponse res) {
        Group group = group(caller, req);
        Body body = Api.body(req);
        GroupSpec old = group.spec();
        GroupManager manager = body.has("manager_config") ? GroupConfigs.manager(body, Optional.of(old.manager())) : old.manager();
        GroupSpec spec = GroupConfigs.spec(body, body.string("description").orElse(old.description()), manager,
                body.strings("agent_ids").orElse(old.agentIds()), body.strings("shared_block_ids").orElse(old.sharedBlockIds()),
                body.bool("hidden").orElse(old.hidden()));
        String user = group.userId();
        checkAgents(user, spec);
        List<Block> blocks = spec.sharedBlockIds().stream().map(id -> api.block(user, id)).toList();
        Group changed = api.store.inTransaction(tx -> {
            Group g = tx.groups().update(user, group.id(), spec);
            for (String id : old.sharedBlockIds()) {
                try {
                    unshare(user, api.block(user, id), group.involvedAgents());
                } catch (ApiException deleted) {
                    // the block is gone: nothing shares it any more
                }
            }
            blocks.forEach(b -> share(user, b, g.involvedAgents()));
            return g;
        });
        Api.json(res, view(changed));
    }

    private void delete(Caller caller, ServerRequest req, ServerResponse res) {
        Group group = group(caller, req);
        api.store.groups().delete(group.userId(), group.id());
        Api.json(res, Body.JSON.createObjectNode().put("message", "Group id=" + group.id() + " successfully deleted"));
    }

    private void send(Caller caller, ServerRequest req, ServerResponse res) {
        Group group = group(caller, req);
        Body body = Api.body(req);
        List<Agent> members = new ArrayList<>();
        for (String id : group.spec().agentIds()) {
            members.add(member(group.userId(), id, "is no longer there; change the group's agent_ids"));
        }
        Optional<Agent> manager = group.spec().manager().managerAgentId()
                .map(id -> member(group.userId(), id, "is no longer there; change the group's manager_config"));
        if (members.isEmpty() && manager.isEmpty()) {
            throw ApiException.badRequest("Group '" + group.id() + "' has no agents; add some with agent_ids first.");
        }
        if (members.isEmpty() && group.spec().manager().type() != GroupManager.Type.SUPERVISOR
                && group.spec().manager().type() != GroupManager.Type.SLEEPTIME) {
            throw ApiException.badRequest("Group '" + group.id() + "' has no members to speak; add some with agent_ids first.");
        }
        Api.json(res, turns.send(group, members, manager, body));
    }

    /**
     * The group's messages: those its agents stored in the group's session, of every agent of the group, in store order
     * (oldest first unless {@code order=desc}), by Letta's cursors.
     */
    private void messages(Caller caller, ServerRequest req, ServerResponse res) {
        Group group = group(caller, req);
        Pages pages = Pages.of(req, 10, false);
        List<ObjectNode> all = new ArrayList<>();
        for (String id : group.involvedAgents()) {
            Optional<Agent> agent = existing(group.userId(), id);
            if (agent.isPresent()) {
                all.addAll(MessageRoutes.page(api, agent.get(), req, MessageQuery.all().withSession(group.id()), m -> true));
            }
        }
        Comparator<ObjectNode> byId = Comparator.comparingLong(o -> Ids.message(o.path("id").asString(), "A message"));
        all.sort(pages.ascending() ? byId : byId.reversed());
        Api.json(res, all.subList(0, Math.min(all.size(), pages.limit())));
    }

    /**
     * Corrects one of the group's messages as {@code PATCH /v1/agents/{agent_id}/messages/{message_id}} does: the
     * message is the member agent's that stored it in the group's session; a 404 when no agent of the group has it.
     */
    private void editMessage(Caller caller, ServerRequest req, ServerResponse res) {
        Group group = group(caller, req);
        String messageId = req.path().pathParameters().get("message_id");
        long id = Ids.message(messageId, "Message");
        for (String agentId : group.involvedAgents()) {
            Optional<Agent> agent = existing(group.userId(), agentId);
            if (agent.isPresent() && api.store.messages().get(agent.get().scope(), id)
                    .filter(m -> m.sessionId().equals(group.id())).isPresent()) {
                MessageEditRoutes.edit(api, agent.get(), req, res);
                return;
            }
        }
        throw ApiException.notFound("Message '" + messageId + "' not found in group '" + group.id() + "'.");
    }

    /** Takes the group's messages out of every member's context (they stay in recall memory). */
    private void reset(Caller caller, ServerRequest req, ServerResponse res) {
        Group group = group(caller, req);
        List<Scope> scopes = group.involvedAgents().stream().map(id -> Scope.of(group.userId(), id)).toList();
        for (Scope s : scopes) {
            if (api.turns.running(s).isPresent()) {
                throw ApiException.conflict("Agent '" + s.agentId() + "' of the group is working on a message; wait, then reset.");
            }
        }
        api.store.inTransaction(tx -> {
            for (Scope s : scopes) {
                List<Long> ids = tx.messages().list(s, MessageQuery.inContext().withSession(group.id()).withLimit(1_000_000))
                        .stream().map(ConversationMessage::id).toList();
                tx.messages().markOutOfContext(s, ids);
            }
            return null;
        });
        Api.json(res, Body.JSON.nullNode());
    }

    private void attachBlock(Caller caller, ServerRequest req, ServerResponse res) {
        Group group = group(caller, req);
        String blockId = req.path().pathParameters().get("block_id");
        Block block = api.block(group.userId(), blockId);
        Set<String> ids = new LinkedHashSet<>(group.spec().sharedBlockIds());
        ids.add(blockId);
        api.store.inTransaction(tx -> {
            share(group.userId(), block, group.involvedAgents());
            return tx.groups().update(group.userId(), group.id(), group.spec().withSharedBlockIds(List.copyOf(ids)));
        });
        Api.json(res, Body.JSON.nullNode());
    }

    private void detachBlock(Caller caller, ServerRequest req, ServerResponse res) {
        Group group = group(caller, req);
        String blockId = req.path().pathParameters().get("block_id");
        Block block = api.block(group.userId(), blockId);
        if (!group.spec().sharedBlockIds().contains(blockId)) {
            throw ApiException.notFound("Block '" + blockId + "' is not attached to group '" + group.id() + "'.");
        }
        List<String> ids = group.spec().sharedBlockIds().stream().filter(id -> !id.equals(blockId)).toList();
        api.store.inTransaction(tx -> {
            unshare(group.userId(), block, group.involvedAgents());
            return tx.groups().update(group.userId(), group.id(), group.spec().withSharedBlockIds(ids));
        });
        Api.json(res, Body.JSON.nullNode());
    }

    /** The groups the agent is in, as manager or member. */
    private void ofAgent(Agent agent, ServerRequest req, ServerResponse res) {
        Pages pages = Pages.of(req, 50, true);
        Optional<GroupManager.Type> type = Query.string(req, "manager_type").flatMap(GroupManager.Type::ofLettaName);
        List<Group> groups = new ArrayList<>(api.store.groups().ofAgent(agent.userId(), agent.id()));
        groups.removeIf(g -> type.map(t -> g.spec().manager().type() != t).orElse(false));
        Api.json(res, page(pages, groups));
    }

    private static List<ObjectNode> page(Pages pages, List<Group> groups) {
        groups.sort(Comparator.comparing(Group::createdAt).thenComparing(Group::id));
        return pages.page(groups, Group::id, "group").stream().map(GroupRoutes::view).toList();
    }

    /** Every agent the spec names must be the user's: a 404 naming the first that is not. */
    private void checkAgents(String user, GroupSpec spec) {
        spec.manager().managerAgentId().ifPresent(id -> member(user, id, "not found"));
        spec.agentIds().forEach(id -> member(user, id, "not found"));
    }

    private Agent member(String user, String id, String otherwise) {
        return existing(user, id).orElseThrow(() -> ApiException.notFound("Agent '" + id + "' " + otherwise + "."));
    }

    private Optional<Agent> existing(String user, String id) {
        try {
            return Optional.of(api.runtime.current(user, id)).filter(a -> a.definition().actsFor().isEmpty());
        } catch (AgentNotFoundException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * Shares the block with each agent but its owner; a 409 (and nothing shared) when one of them has another block of
     * that label.
     */
    private void share(String user, Block block, Collection<String> agentIds) {
        for (String id : agentIds) {
            if (!id.equals(block.ownerAgentId())) {
                Optional<Block> same = api.store.blocks().get(Scope.of(user, id), block.label());
                if (same.isPresent() && !same.get().ownerAgentId().equals(block.ownerAgentId())) {
                    throw ApiException.conflict("Agent '" + id + "' already has a block labelled '" + block.label()
                            + "'; an agent sees one block per label. Nothing was changed.");
                }
            }
        }
        for (String id : agentIds) {
            if (!id.equals(block.ownerAgentId())) {
                api.store.blocks().share(Scope.of(user, block.ownerAgentId()), block.label(), id, block.permission());
            }
        }
    }

    private void unshare(String user, Block block, Collection<String> agentIds) {
        for (String id : agentIds) {
            if (!id.equals(block.ownerAgentId())) {
                api.store.blocks().unshare(Scope.of(user, block.ownerAgentId()), block.label(), id);
            }
        }
    }

    /** The group of one of the caller's users that the path names; a 404 (never a 403) when none has it. */
    private Group group(Caller caller, ServerRequest req) {
        String id = req.path().pathParameters().get("group_id");
        for (String user : api.users(caller)) {
            Optional<Group> g = api.store.groups().get(user, id);
            if (g.isPresent()) {
                return g.get();
            }
        }
        throw ApiException.notFound("Group '" + id + "' not found.");
    }

    /** Letta's {@code Group}. */
    static ObjectNode view(Group g) {
        GroupManager m = g.spec().manager();
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", g.id());
        o.put("manager_type", m.type().lettaName());
        g.spec().agentIds().forEach(o.putArray("agent_ids")::add);
        o.put("description", g.spec().description());
        o.putNull("project_id");
        o.putNull("template_id");
        o.putNull("base_template_id");
        o.putNull("deployment_id");
        g.spec().sharedBlockIds().forEach(o.putArray("shared_block_ids")::add);
        m.managerAgentId().ifPresentOrElse(id -> o.put("manager_agent_id", id), () -> o.putNull("manager_agent_id"));
        m.terminationToken().ifPresentOrElse(t -> o.put("termination_token", t), () -> o.putNull("termination_token"));
        m.maxTurns().ifPresentOrElse(t -> o.put("max_turns", t), () -> o.putNull("max_turns"));
        m.sleeptimeAgentFrequency().ifPresentOrElse(f -> o.put("sleeptime_agent_frequency", f),
                () -> o.putNull("sleeptime_agent_frequency"));
        o.put("turns_counter", g.turnsCounter());
        o.putNull("last_processed_message_id");
        o.putNull("max_message_buffer_length");
        o.putNull("min_message_buffer_length");
        o.put("hidden", g.spec().hidden());
        return o;
    }
}
