package dev.engram.server;

import dev.engram.agents.MemoryManager;
import dev.engram.tools.FolderUploads;
import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentNotFoundException;
import dev.engram.agents.AgentRuntime;
import dev.engram.agents.UserTools;
import dev.engram.agents.DeclaredTool;
import dev.engram.agents.LettaModels;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolDefinition;
import dev.engram.memory.AgentRecord;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.TextChunker;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** What every endpoint shares: the runtime, agent lookup within the caller's users, JSON answers. */
final class Api {
    /** The user an admin key's agents belong to when the request names no identity. */
    static final String DEFAULT_USER = "default";

    final AgentRuntime runtime;
    final MemoryStore store;
    final Turns turns;
    final Settings settings;
    final QuotaGuard quotas;
    final RunLog runs;
    /** Each user's own tools (their MCP servers' and their custom tools), which only that user's agents may be given. */
    final UserTools userTools;
    /** The memory extraction jobs, on each agent's own model. */
    final MemoryManager memory;
    /** The uploads to folders, processed in the background. */
    final FolderUploads uploads;

    /**
     * The server's settings that endpoints read.
     *
     * @param images       limits the images of one message
     * @param runRetention how long a run and its events are kept after it ends
     * @param maxRunEvents the most events kept per run (the newest)
     * @param environment  the operator's, whose base-URL variables say where provider models are really called
     */
    record Settings(String defaultModel, java.time.Duration pingInterval, java.time.Duration keyCacheTtl,
            ImageParts.Limits images, java.time.Duration runRetention, int maxRunEvents, Map<String, String> environment) {
    }

    Api(AgentRuntime runtime, Turns turns, Settings settings, UserTools userTools, RunLog runs) {
        this.runtime = runtime;
        this.userTools = userTools;
        this.store = runtime.store();
        this.turns = turns;
        this.settings = settings;
        this.quotas = new QuotaGuard(store);
        this.runs = runs;
        this.memory = MemoryManager.builder(store).models(scope -> runtime.model(scope.agentId()
                .map(a -> runtime.current(scope.userId(), a).definition().model()).orElse(settings.defaultModel()))).build();
        this.uploads = FolderUploads.create(store, runtime.search(), TextChunker.DEFAULT_CHARS, runtime::fileLimits);
    }

    /** What one message may hold: the store's longest text, the server's image limits. */
    TurnRequest.Limits messageLimits() {
        return new TurnRequest.Limits(store.limits().maxTextChars(), settings.images());
    }

    /** The users whose things the caller sees: its own, or (an admin key) the default user and every user with a key or an identity. */
    List<String> users(Caller caller) {
        if (caller.user().isPresent()) {
            return List.of(caller.user().get());
        }
        Set<String> users = new LinkedHashSet<>();
        users.add(DEFAULT_USER);
        store.keys().list().forEach(k -> k.userId().ifPresent(users::add));
        store.identities().list().forEach(i -> users.add(i.userId()));
        return List.copyOf(users);
    }

    /** The caller's agent of that id; a 404 (never a 403) when the caller has none. */
    Agent agent(Caller caller, String agentId) {
        for (String user : users(caller)) {
            try {
                Agent agent = runtime.current(user, agentId);
                if (agent.definition().actsFor().isEmpty()) {
                    return agent;
                }
            } catch (AgentNotFoundException e) {
                // not this user's
            } catch (IllegalArgumentException e) {
                break;
            }
        }
        throw ApiException.notFound("Agent '" + agentId + "' not found.");
    }

    /** The user's own block (at its owner agent) that a block id names; a 404 when the user has no such block. */
    dev.engram.memory.Block block(String user, String blockId) {
        Ids.BlockRef ref = Ids.block(blockId);
        return store.blocks().get(dev.engram.memory.Scope.of(user, ref.ownerAgentId()), ref.label())
                .filter(b -> b.ownerAgentId().equals(ref.ownerAgentId()))
                .orElseThrow(() -> ApiException.notFound("Block '" + blockId + "' not found."));
    }

    /** The first of the caller's users that has the block a block id names; a 404 when none has it. */
    String userOfBlock(Caller caller, String blockId) {
        for (String user : users(caller)) {
            try {
                block(user, blockId);
                return user;
            } catch (ApiException e) {
                // not this user's
            }
        }
        throw ApiException.notFound("Block '" + blockId + "' not found.");
    }

    /** Letta's {@code AgentState} of an agent. */
    ObjectNode agentState(Agent agent) {
        AgentDefinition d = agent.definition();
        AgentRecord record = store.agents().get(agent.scope())
                .orElseThrow(() -> ApiException.notFound("Agent '" + d.id() + "' not found."));
        List<String> inContext = store.messages().list(agent.scope(), MessageQuery.inContext().withLimit(100_000)).stream()
                .map(m -> Ids.message(m.id())).toList();
        ObjectNode state = LettaViews.agent(d, store.blocks().list(agent.scope()), tools(d), inContext, record.createdAt(),
                record.updatedAt());
        state.set("llm_config", LettaModels.llmConfig(d, settings.environment()));
        AgentFolderRoutes.fill(state, this, agent);
        // The call a turn of this agent waits to have approved, as Letta shows it (so a client that reconnects finds it)
        // (the first, when a step waits on several).
        turns.running(agent.scope()).map(Turns.Running::pending).filter(p -> !p.isEmpty()).map(List::getFirst).ifPresentOrElse(
                p -> state.set("pending_approval", LettaViews.approvalRequest("approval-" + p.callId(), p.at(),
                        p.toolName(), p.arguments(), p.callId())),
                () -> state.putNull("pending_approval"));
        return state;
    }

    /** The Letta views of an agent's tools, in the order of its definition. */
    List<ObjectNode> tools(AgentDefinition d) {
        Map<String, ToolDefinition> known = runtime.toolRegistry().list().stream()
                .collect(Collectors.toMap(DynamicTool::name, t -> new ToolDefinition(t.name(), t.description(),
                        t.parametersSchema(), t.safetyTier())));
        Map<String, DeclaredTool> declared = d.declaredTools().stream()
                .collect(Collectors.toMap(DeclaredTool::name, Function.identity(), (a, b) -> a));
        List<ObjectNode> out = new ArrayList<>();
        for (String name : d.tools()) {
            if (known.containsKey(name)) {
                out.add(LettaViews.tool(known.get(name)));
            } else if (declared.containsKey(name)) {
                out.add(LettaViews.tool(declared.get(name)));
            } else if (store.customTools().byName(d.userId(), name).isPresent()) {
                out.add(ToolSources.view(store.customTools().byName(d.userId(), name).get()));
            } else {
                userTools.find(d.userId(), name).ifPresent(t -> out.add(LettaViews.tool(new ToolDefinition(t.name(),
                        t.description(), t.parametersSchema(), t.safetyTier()))));
            }
        }
        return out;
    }

    static void json(ServerResponse res, JsonNode body) {
        json(res, Status.OK_200, body);
    }

    static void json(ServerResponse res, Status status, JsonNode body) {
        res.status(status);
        res.header(HeaderNames.CONTENT_TYPE, "application/json");
        res.send(Body.JSON.writeValueAsBytes(body));
    }

    static void json(ServerResponse res, List<? extends JsonNode> items) {
        json(res, Body.JSON.createArrayNode().addAll(items));
    }

    /** The request body as JSON, within the server's body limit (Helidon answers 413 beyond it). */
    static Body body(ServerRequest req) {
        return Body.parse(req.content().hasEntity() ? req.content().as(String.class) : "");
    }
}
