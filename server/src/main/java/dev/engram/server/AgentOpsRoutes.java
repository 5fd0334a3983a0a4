package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.PATCH;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.agents.Compaction;
import dev.engram.memory.Block;
import dev.engram.memory.Identity;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What else an agent answers: {@code summarize} (compact its context window now), {@code recompile} and its deprecated
 * alias {@code system-prompt/recompile} (the system prompt its next step compiles), {@code core-memory} (Letta's
 * {@code Memory}) and its template {@code variables}, the POST form of {@code export}, and identities attached to an
 * agent or a block. An identity is an Engram user ({@link Identities}): an agent or a block belongs to exactly its user's
 * identity, so attaching that one changes nothing and any other is refused with what to do instead; a detach, as in
 * Letta, never fails for an identity and an agent or block the caller sees, and changes nothing (the user's identity
 * stays, since no call moves an agent or a block away from its user).
 */
final class AgentOpsRoutes {
    private final Api api;

    AgentOpsRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return Route.table()
                .add(Route.agent(api, POST, "/v1/agents/{agent_id}/summarize", this::summarize))
                .add(Route.agent(api, POST, "/v1/agents/{agent_id}/recompile", this::recompile))
                .add(Route.agent(api, POST, "/v1/agents/{agent_id}/system-prompt/recompile", this::recompile))
                .add(Route.agent(api, GET, "/v1/agents/{agent_id}/core-memory", this::memory))
                .add(Route.agent(api, GET, "/v1/agents/{agent_id}/core-memory/variables", this::variables))
                .add(Route.agent(api, POST, "/v1/agents/{agent_id}/export", this::export))
                .add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/identities/attach/{identity_id}",
                        (agent, req, res) -> agentIdentity(agent, req, res, true)))
                .add(Route.agent(api, PATCH, "/v1/agents/{agent_id}/identities/detach/{identity_id}",
                        (agent, req, res) -> agentIdentity(agent, req, res, false)))
                .add(Route.caller(PATCH, "/v1/blocks/{block_id}/identities/attach/{identity_id}",
                        (caller, req, res) -> blockIdentity(caller, req, res, true)))
                .add(Route.caller(PATCH, "/v1/blocks/{block_id}/identities/detach/{identity_id}",
                        (caller, req, res) -> blockIdentity(caller, req, res, false)))
                .list();
    }

    /**
     * Summarises the older part of the agent's own context window now and evicts it (the messages stay in recall
     * memory): Letta's {@code CompactionResponse}. Letta's {@code compaction_settings} (the server's own only) and the
     * older {@code max_message_length} (a positive count, the most messages to keep: when the window holds no more,
     * nothing is compacted and the answer says so) are checked before anything changes. A 400 when there is nothing to
     * compact, a 409 while the agent works on a message.
     */
    private void summarize(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        AgentFields.compaction(body);
        Optional<Integer> keep = body.integer("max_message_length");
        if (keep.isPresent() && keep.get() < 1) {
            throw body.problem("greater_than", "Input should be greater than 0", "max_message_length");
        }
        if (api.turns.running(agent.scope()).isPresent()) {
            throw ApiException.conflict("Agent '" + agent.id() + "' is working on a message; cancel it or wait, then "
                    + "summarize.");
        }
        int inContext = agent.inContextMessages().size();
        if (keep.isPresent() && inContext <= keep.get()) {
            throw ApiException.badRequest("Agent '" + agent.id() + "' has " + inContext + " messages in its context window, "
                    + "no more than max_message_length (" + keep.get() + "): there is nothing to summarize.");
        }
        Compaction done = agent.compact(ConversationRoutes.DEFAULT);
        Api.json(res, Body.JSON.createObjectNode().put("summary", done.summary())
                .put("num_messages_before", done.messagesBefore()).put("num_messages_after", done.messagesAfter()));
    }

    /**
     * The system prompt the agent's next step compiles from its blocks as they are now. Engram compiles the prompt anew
     * at every step and stores none, so {@code dry_run} and {@code update_timestamp} (checked as booleans) change nothing.
     */
    private void recompile(Agent agent, ServerRequest req, ServerResponse res) {
        Query.bool(req, "dry_run", false);
        Query.bool(req, "update_timestamp", false);
        Api.json(res, Body.JSON.getNodeFactory().stringNode(agent.compilePrompt().systemText()));
    }

    /** Letta's {@code Memory}: the blocks the agent sees (its own and those shared with it), in its prompt's order. */
    private void memory(Agent agent, ServerRequest req, ServerResponse res) {
        ObjectNode memory = (ObjectNode) api.agentState(agent).path("memory").deepCopy();
        memory.put("git_enabled", false);
        Api.json(res, memory);
    }

    /**
     * The agent's memory variables ({@code {"variables": {...}}}): values Letta Cloud's templates fill into blocks when
     * an agent is made from one. Engram has no templates, so an agent has none.
     */
    private void variables(Agent agent, ServerRequest req, ServerResponse res) {
        ObjectNode out = Body.JSON.createObjectNode();
        out.putObject("variables");
        Api.json(res, out);
    }

    /**
     * {@code POST .../export}: the agent's Letta Agent File, as {@code GET} answers it, with Letta's body: {@code
     * scrub_messages} leaves the messages out; {@code conversation_id} may name only the agent's own history
     * ({@code default}); {@code skills} must be empty (Engram agents have no skills to include).
     */
    private void export(Agent agent, ServerRequest req, ServerResponse res) {
        Body body = Api.body(req);
        if (body.raw("skills").filter(s -> !(s.isArray() && s.isEmpty())).isPresent()) {
            throw body.problem("value_error", "Engram agents have no skills to export; leave skills out or give []", "skills");
        }
        Optional<String> conversation = body.string("conversation_id");
        if (conversation.isPresent() && !conversation.get().equals(ConversationRoutes.DEFAULT)) {
            throw body.problem("value_error", "An export holds the agent's own history; export a conversation's messages "
                    + "with GET /v1/conversations/" + conversation.get() + "/messages, or leave conversation_id out",
                    "conversation_id");
        }
        boolean scrub = body.bool("scrub_messages").orElse(false);
        String file = api.runtime.exportLettaAgentFile(agent.userId(), List.of(agent.id()));
        if (scrub) {
            ObjectNode parsed = (ObjectNode) Body.JSON.readTree(file);
            for (JsonNode a : parsed.path("agents")) {
                ((ObjectNode) a).putArray("messages");
                ((ObjectNode) a).putArray("in_context_message_ids");
            }
            file = Body.JSON.writeValueAsString(parsed);
        }
        res.header(HeaderNames.CONTENT_TYPE, "application/json");
        res.send(file);
    }

    /**
     * Attaching an agent's own identity (its user's) changes nothing and answers the agent; any other identity of the
     * caller's is refused with a 409 (an agent is one user's, and moves to another only through export and import).
     * Detaching answers the agent as it is, as Letta answers a detach with nothing to remove: an identity it never had
     * is not attached, and its own identity is its user, which stays (the agent's owner changes only through export and
     * import; delete the agent to end it). An identity the caller does not see is a 404 either way.
     */
    private void agentIdentity(Agent agent, ServerRequest req, ServerResponse res, boolean attach) {
        String identityId = req.path().pathParameters().get("identity_id");
        String user = identityUser(Authentication.caller(req), agent.userId(), identityId);
        String own = Identities.id(agent.userId());
        if (attach && !user.equals(agent.userId())) {
            throw ApiException.conflict("Agent '" + agent.id() + "' belongs to identity '" + own + "', its user's; an "
                    + "Engram agent has exactly one identity. To give the agent to '" + identityId + "', export it "
                    + "(GET /v1/agents/" + agent.id() + "/export) and import the file with that identity's key.");
        }
        Api.json(res, api.agentState(agent));
    }

    /** As {@link #agentIdentity} for a block: a block is its user's, and carries that identity only; a detach changes nothing. */
    private void blockIdentity(Caller caller, ServerRequest req, ServerResponse res, boolean attach) {
        String blockId = req.path().pathParameters().get("block_id");
        String owner = api.userOfBlock(caller, blockId);
        Block block = api.block(owner, blockId);
        String identityId = req.path().pathParameters().get("identity_id");
        String user = identityUser(caller, owner, identityId);
        if (attach && !user.equals(owner)) {
            throw ApiException.conflict("Block '" + blockId + "' belongs to identity '" + Identities.id(owner) + "', its "
                    + "user's; an Engram block has exactly one identity. Create the block with '" + identityId
                    + "''s key instead.");
        }
        ObjectNode view = LettaViews.block(block);
        ArrayNode ids = view.putArray("identity_ids");
        ids.add(Identities.id(owner));
        Api.json(res, view);
    }

    /**
     * The user an identity id names, when the caller may name it: the owner's own identity (which exists as the user
     * whether or not it was registered), or a registered identity of a user the caller sees. A 404 otherwise.
     */
    private String identityUser(Caller caller, String owner, String identityId) {
        String user = Identities.userOf(identityId);
        if (user.equals(owner)) {
            return user;
        }
        return api.store.identities().get(user).filter(i -> caller.sees(i.userId())).map(Identity::userId)
                .orElseThrow(() -> ApiException.notFound("Identity '" + identityId + "' not found."));
    }
}
