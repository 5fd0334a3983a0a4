package dev.engram.agents;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ApprovalRule;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.memory.AgentRecord;
import dev.engram.memory.DuplicateException;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewBlock;
import dev.engram.memory.QuotaExceededException;
import dev.engram.memory.Scope;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.ProgramTools;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agents of one runtime: creates them (persisting definition and blocks), loads them lazily by
 * id, and keeps the loaded ones, at most the runtime's bound ({@link LoadedAgents}). Each agent is built from values: its definition, a tool executor
 * over the runtime's tool catalog, a token counter, and the shared {@link AgentSettings}.
 */
final class AgentRegistry {
    private static final Logger LOG = LoggerFactory.getLogger(AgentRegistry.class);
    private final AgentSettings settings;
    private final ActiveTurns turns;
    private final Function<String, TokenCounter> tokenCounters;
    /** Filled by the runtime before the first agent is created or loaded (the router and subagent tool need this registry). */
    private final Map<String, DynamicTool> catalog;
    /** The loaded agents, at most the runtime's bound, with the stored definition each was built from (its text). */
    private final LoadedAgents loaded;
    /** Workspace, shell and web tools a loaded agent has for this runtime's life only, in place of its stored ones. */
    private final Map<Scope, ToolAccess> sessionAccess = new ConcurrentHashMap<>();

    /** The runner of {@code execute_code} and {@code run_code}, when the runtime enables code execution. */
    private final Optional<CodeRunner> code;
    /** The tools that belong to one user (their MCP servers'), after the catalog's. */
    private final UserTools userTools;

    AgentRegistry(AgentSettings settings, ActiveTurns turns, Function<String, TokenCounter> tokenCounters,
            Map<String, DynamicTool> catalog, Optional<CodeRunner> code, UserTools userTools, int maxLoaded) {
        this.loaded = new LoadedAgents(maxLoaded);
        this.settings = settings;
        this.userTools = userTools;
        this.code = code;
        this.turns = turns;
        this.tokenCounters = tokenCounters;
        this.catalog = catalog;
    }

    private MemoryStore store() {
        return settings.store();
    }

    /** Persists a new agent and its blocks, and returns it loaded; stores nothing if anything fails. */
    Agent create(AgentDefinition definition) {
        settings.checkOpen();
        return create(definition, definition.blocks());
    }

    /** Persists a new agent with {@code blocks} in one unit of work of the store, and returns it loaded. */
    Agent create(AgentDefinition definition, List<NewBlock> blocks) {
        boolean inCallersUnit = store().isInTransaction();
        Agent agent = store().inTransaction(tx -> stage(definition, blocks));
        if (!inCallersUnit) {
            remember(agent); // committed; inside a caller's unit, which may yet roll back, it is loaded when next asked for
        }
        return agent;
    }

    /**
     * Stores a new agent, its blocks and the blocks shared with it, all inside the caller's unit of work (or one of
     * its own): if anything fails, the unit stores nothing. Returns the agent without loading it: {@link #remember}
     * it once the unit has committed, so that a unit that rolls back leaves no loaded agent behind.
     */
    Agent stage(AgentDefinition definition, List<NewBlock> blocks) {
        return stage(definition, blocks, true);
    }

    /**
     * As {@link #stage(AgentDefinition, List)}; an import passes {@code refuseCodeTools} false: a file's agent that
     * names a code tool on a runtime without code is stored with it (the import warned) and loads without it.
     */
    Agent stage(AgentDefinition definition, List<NewBlock> blocks, boolean refuseCodeTools) {
        if (code.isEmpty() && refuseCodeTools) {
            List<String> named = definition.tools().stream().filter(ProgramTools.CODE_TOOLS::contains).toList();
            if (!named.isEmpty()) {
                throw new AgentException("Agent '" + definition.name() + "' names " + String.join(" and ", named) + ", but code "
                        + "execution is off on this runtime: enable it (engram --code, AgentRuntime.Builder.code) or leave "
                        + "them out.");
            }
        }
        ToolExecutor executor = executorFor(definition); // validates the tools before anything is stored
        Scope scope = definition.scope();
        for (BlockAttachment a : definition.sharedBlocks()) {
            Scope owner = Scope.of(definition.userId(), a.ownerAgentId());
            if (store().blocks().get(owner, a.label()).filter(b -> b.ownerAgentId().equals(a.ownerAgentId())).isEmpty()) {
                throw new AgentException("Agent '" + definition.name() + "' is to be given block '" + a.label() + "' of agent '"
                        + a.ownerAgentId() + "', which has no such block of its own. Nothing was stored.");
            }
        }
        for (NewBlock b : blocks) {
            if (store().blocks().get(scope, b.label()).isPresent()) {
                throw new AgentException("Agent id '" + definition.id() + "' already has memory in this store (block '"
                        + b.label() + "'); choose another id, or create the agent without that block to reattach it.");
            }
        }
        try {
            store().agents().create(scope, definition.name(), AgentFiles.definitionJson(definition).toString());
        } catch (DuplicateException e) {
            throw new AgentException(e.getMessage(), e);
        }
        try {
            for (NewBlock b : blocks) {
                store().blocks().create(scope, b);
            }
        } catch (QuotaExceededException e) {
            throw e; // its own sentence, answered as a quota (the unit of work rolls the agent back)
        } catch (RuntimeException e) {
            // The unit of work rolls back the agent and the blocks already created.
            String reason = String.valueOf(e.getMessage());
            throw new AgentException("Agent '" + definition.name() + "' was not created: " + reason
                    + (reason.contains("Nothing was stored") ? "" : " Nothing was stored."), e);
        }
        for (BlockAttachment a : definition.sharedBlocks()) {
            store().blocks().share(Scope.of(definition.userId(), a.ownerAgentId()), a.label(), definition.id(), a.permission());
        }
        return newAgent(definition, executor);
    }

    /** Keeps an agent {@link #stage staged} in a unit of work that has committed as loaded. */
    void remember(Agent agent) {
        loaded.put(agent, AgentFiles.definitionJson(agent.definition()).toString());
    }

    /** Checks that the runtime can give the agent every tool it names, as {@link #create} would, storing nothing. */
    void checkTools(AgentDefinition definition) {
        executorFor(definition);
    }

    /** The definitions of the runtime's tools, by name. */
    Map<String, dev.engram.framework.ToolDefinition> toolDefinitions() {
        Map<String, dev.engram.framework.ToolDefinition> out = new java.util.HashMap<>();
        toolRegistry().definitions().forEach(d -> out.put(d.name(), d));
        return out;
    }

    /** The agent if the user has it, else the one {@code definition} describes, created now. */
    Agent findOrCreate(String userId, String agentId, java.util.function.Supplier<AgentDefinition> definition) {
        if (store().agents().get(Scope.of(userId, agentId)).isPresent()) {
            return agent(userId, agentId);
        }
        return create(definition.get());
    }

    /**
     * Adds a tool to the runtime's catalogue; with {@code replace}, it takes the place of the tool of that
     * name (a built-in too). Loaded agents that name it offer it from their next step.
     */
    void addTool(DynamicTool tool, boolean replace) {
        if (!replace && catalog.containsKey(tool.name())) {
            throw new IllegalArgumentException("tool '" + tool.name() + "' is already provided by the runtime; replace it "
                    + "explicitly with replaceTool, or give yours another name");
        }
        if (replace && !catalog.containsKey(tool.name())) {
            throw new IllegalArgumentException("there is no tool '" + tool.name() + "' to replace; add it with registerTool");
        }
        catalog.put(tool.name(), tool);
        for (Agent agent : loaded.values()) {
            if (agent.definition().tools().contains(tool.name())) {
                agent.retool(agent.definition(), executorFor(agent.definition()));
            }
        }
    }

    /** Rebuilds the tools of the user's loaded agents; one that names a tool which is gone keeps its old ones. */
    void retoolUser(String userId) {
        for (Agent agent : loaded.values()) {
            if (agent.userId().equals(userId)) {
                try {
                    agent.retool(agent.definition(), executorFor(agent.definition()));
                } catch (AgentException e) {
                    LOG.warn("Agent '{}' of user '{}' keeps its previous tools: {}", agent.id(), userId, e.getMessage());
                }
            }
        }
    }

    /** Changes an agent's tools, persisted; a loaded agent offers them from its next step. */
    Agent changeTools(String userId, String agentId, List<String> tools) {
        return redefine(userId, agentId, d -> d.toBuilder().tools(tools).build());
    }

    /** Gives an agent other workspace, shell and web tools of its own (the names of the old ones leave its tools). */
    Agent changeToolAccess(String userId, String agentId, ToolAccess access) {
        return redefine(userId, agentId, d -> withAccess(d, access));
    }

    /** {@code d} with {@code access} in place of its own workspace, shell and web tools. */
    private static AgentDefinition withAccess(AgentDefinition d, ToolAccess access) {
        List<String> kept = new ArrayList<>(d.tools());
        kept.removeAll(d.toolAccess().toolNames());
        return d.toBuilder().tools(kept).toolAccess(access).build();
    }

    /** The definition a loaded agent runs with: the stored one, with this runtime's session tools if it was given any. */
    private AgentDefinition running(AgentDefinition stored) {
        ToolAccess session = sessionAccess.get(stored.scope());
        return session == null ? stored : withAccess(stored, session);
    }

    /**
     * Gives a loaded agent other workspace, shell and web tools while this runtime keeps it loaded, storing nothing:
     * its stored definition, and any later change to it, keep the tools it had.
     */
    Agent useToolAccess(String userId, String agentId, ToolAccess access) {
        Agent agent = agent(userId, agentId);
        AgentDefinition stored = stored(agent.scope());
        AgentDefinition session = withAccess(stored, access);
        ToolExecutor executor = executorFor(session); // checked before the agent changes
        sessionAccess.put(agent.scope(), access);
        agent.retool(session, executor);
        return agent;
    }

    /** The agent's definition as the store holds it. */
    private AgentDefinition stored(Scope scope) {
        return definitionOf(store().agents().get(scope).orElseThrow(() -> new AgentNotFoundException(
                "User '" + scope.userId() + "' has no agent with id '" + scope.agentId() + "'.")));
    }

    Agent modify(String userId, String agentId, java.util.function.UnaryOperator<AgentDefinition> change) {
        return redefine(userId, agentId, d -> {
            AgentDefinition changed = Objects.requireNonNull(change.apply(d), "the change returned no definition");
            if (!changed.id().equals(d.id()) || !changed.userId().equals(d.userId())) {
                throw new AgentException("An agent's id and user cannot change (agent '" + d.id() + "' of user '"
                        + d.userId() + "'); create a new agent instead.");
            }
            return changed;
        });
    }

    private Agent redefine(String userId, String agentId, java.util.function.UnaryOperator<AgentDefinition> change) {
        Agent agent = agent(userId, agentId);
        // An agent with session tools is changed from its stored definition: the session's tools are never stored.
        AgentDefinition changed = change.apply(sessionAccess.containsKey(agent.scope()) ? stored(agent.scope())
                : agent.definition());
        ToolExecutor executor = executorFor(changed); // checked before anything is stored
        AgentDefinition running = running(changed);
        ToolExecutor runningExecutor = running == changed ? executor : executorFor(running);
        String json = AgentFiles.definitionJson(changed).toString();
        store().agents().update(changed.scope(), changed.name(), json);
        agent.retool(running, runningExecutor);
        loaded.definition(changed.scope(), json);
        return agent;
    }

    /** The agent, loaded from the store on first use. */
    Agent agent(String userId, String agentId) {
        settings.checkOpen();
        Scope scope = Scope.of(userId, agentId);
        Optional<Agent> known = loaded.get(scope);
        if (known.isPresent()) {
            return known.get();
        }
        if (store().isInTransaction()) {
            return load(scope).agent(); // not kept: the unit of work it was read in may roll back
        }
        return loaded.computeIfAbsent(scope, this::load);
    }

    /** The agent as stored, with the text of its stored definition. */
    private LoadedAgents.Loaded load(Scope s) {
        AgentRecord record = store().agents().get(s).orElseThrow(() -> new AgentNotFoundException(
                "User '" + s.userId() + "' has no agent with id '" + s.agentId() + "'."));
        AgentDefinition definition = running(definitionOf(record));
        return new LoadedAgents.Loaded(newAgent(definition, executorFor(definition)), record.definition());
    }

    /**
     * The agent as its stored definition says now: a loaded agent whose definition another process changed (a
     * server sharing the database) is given the stored one; one that another process deleted is forgotten.
     */
    Agent current(String userId, String agentId) {
        settings.checkOpen();
        Scope scope = Scope.of(userId, agentId);
        Agent agent = loaded.get(scope).orElse(null);
        if (agent == null) {
            return agent(userId, agentId);
        }
        Optional<AgentRecord> record = store().agents().get(scope);
        if (record.isEmpty()) {
            loaded.remove(scope);
            sessionAccess.remove(scope);
            throw new AgentNotFoundException("User '" + userId + "' has no agent with id '" + agentId + "'.");
        }
        if (!record.get().definition().equals(loaded.definition(scope).orElse(null))) {
            AgentDefinition definition = running(definitionOf(record.get()));
            agent.retool(definition, executorFor(definition));
            loaded.definition(scope, record.get().definition());
        }
        return agent;
    }

    Optional<Agent> loaded(Scope scope) {
        return loaded.get(scope);
    }

    /** How many agents are loaded now (at most {@link LoadedAgents#max()} once the least recently used can go). */
    int loadedCount() {
        return loaded.size();
    }

    /** The user's agents' stored definitions. */
    List<AgentDefinition> definitions(String userId) {
        return store().agents().list(userId).stream().map(this::definitionOf).toList();
    }

    List<String> agentIds(String userId) {
        return store().agents().list(userId).stream().map(r -> r.scope().agentId()).toList();
    }

    /** Forgets the loaded agent unless it is working on a message. */
    void unload(Scope scope) {
        Agent agent = loaded.get(scope).orElse(null);
        if (agent != null && agent.isBusy()) {
            throw new AgentException("Agent '" + scope.agentId() + "' is working on a message; delete it when it is idle.");
        }
        loaded.remove(scope);
        sessionAccess.remove(scope);
    }

    /** Cancels every loaded agent's step and forgets them. */
    void cancelAll() {
        loaded.values().forEach(Agent::cancel);
        loaded.clear();
        sessionAccess.clear();
    }

    List<String> availableTools() {
        return catalog.keySet().stream().sorted().toList();
    }

    ToolRegistry toolRegistry() {
        return ToolRegistry.create().registerAll(catalog.values());
    }

    AgentDefinition definitionOf(AgentRecord record) {
        try {
            return AgentFiles.definition(Heartbeats.JSON.readTree(record.definition()), "the stored definition of agent '"
                    + record.scope().agentId() + "'");
        } catch (RuntimeException e) {
            throw e instanceof AgentException a ? a : new AgentException("The stored definition of agent '"
                    + record.scope().agentId() + "' cannot be read: " + e.getMessage(), e);
        }
    }

    private Agent newAgent(AgentDefinition definition, ToolExecutor executor) {
        return new Agent(definition, executor, tokenCounters.apply(TokenCounter.modelName(definition.model())), settings, turns);
    }

    /** The agent's own workspace, shell and web tools ({@link ToolAccess}), by name. */
    private Map<String, DynamicTool> accessTools(AgentDefinition d) {
        ToolAccess access = d.toolAccess();
        Map<String, DynamicTool> out = new java.util.HashMap<>();
        if (access.isNone()) {
            return out;
        }
        java.util.List<DynamicTool> tools = new ArrayList<>();
        if (access.workspace().isPresent()) {
            dev.engram.tools.Workspace ws;
            try {
                ws = dev.engram.tools.Workspace.of(access.workspace().get());
            } catch (IllegalArgumentException e) {
                throw new AgentException("Agent '" + d.name() + "' works in " + access.workspace().get() + ", which cannot be "
                        + "used: " + e.getMessage(), e);
            }
            tools.addAll(dev.engram.tools.BuiltinTools.files(ws));
            if (!access.shell().isEmpty()) {
                String[] programs = access.shell().toArray(String[]::new);
                if (settings.shellSessions().isPresent()) {
                    tools.add(dev.engram.tools.BuiltinTools.shell(ws, dev.engram.tools.ShellOptions.session(programs),
                            settings.shellSessions().get()));
                } else {
                    dev.engram.tools.ShellOptions shell = dev.engram.tools.ShellOptions.of(programs);
                    tools.add(dev.engram.tools.BuiltinTools.shell(ws, settings.unsandboxedHostShell()
                            ? shell.withUnsandboxedHostFallback() : shell));
                }
            }
        }
        if (access.web()) {
            tools.addAll(dev.engram.tools.BuiltinTools.web(dev.engram.tools.WebFetcher.http(),
                    dev.engram.tools.SearchProviders.fromEnvironment(System.getenv())));
        }
        tools.forEach(t -> out.put(t.name(), t));
        return out;
    }

    /**
     * A declared tool: the local Python runner where enabled and the source is Python (its output cut to the tool's
     * {@code returnCharLimit}), else an explanation.
     */
    private DynamicTool declared(DeclaredTool t) {
        if (t.isPython() && settings.pythonRunner().isPresent()) {
            ImportedTool shape = new ImportedTool(t);
            DynamicTool python = settings.pythonRunner().get().tool(t.name(), shape.description(), shape.parametersSchema(),
                    t.sourceCode());
            return t.returnCharLimit() > 0 ? CharLimitedTool.of(python, t.returnCharLimit()) : python;
        }
        return new ImportedTool(t);
    }

    private ToolExecutor executorFor(AgentDefinition d) {
        ToolRegistry registry = ToolRegistry.create();
        List<String> missing = new ArrayList<>();
        Map<String, DynamicTool> own = accessTools(d);
        for (String name : d.tools()) {
            if (ProgramTools.CODE_TOOLS.contains(name) && (code.isEmpty() || name.equals(CodeMode.EXECUTE_CODE))) {
                // Without code execution an agent that has the code tools runs without them (creating one is refused);
                // execute_code's stubs are the agent's other tools, so it is registered once they are.
                continue;
            }
            // The agent's own workspace, shell and web tools first; then the runtime's, which win over an
            // agent file's declaration of the same name.
            DynamicTool tool = own.containsKey(name) ? own.get(name) : catalog.get(name);
            if (tool == null) {
                tool = userTools.find(d.userId(), name).orElse(null);
            }
            if (tool == null) {
                tool = d.declaredTools().stream().filter(t -> t.name().equals(name)).findFirst()
                        .map(this::declared).orElse(null);
            }
            if (tool == null) {
                missing.add(name);
            } else {
                registry.register(tool);
            }
        }
        if (own.containsKey("web_search") && !d.tools().contains("web_search")) {
            registry.register(own.get("web_search")); // offered whenever a search provider is configured
        }
        if (!missing.isEmpty()) {
            throw new AgentException("Agent '" + d.name() + "' names tools this runtime does not have: " + missing
                    + ". Available: " + availableTools() + " (add your own with AgentRuntime.Builder.tool).");
        }
        AtomicReference<ToolExecutor> built = new AtomicReference<>();
        if (d.tools().contains(CodeMode.EXECUTE_CODE) && code.isPresent()) {
            registry.register(CodeMode.forAgent(code.get(), CodeMode.stubs(registry, d.policy()), built::get, turns, d.scope()));
        }
        ToolExecutor.Builder b = ToolExecutor.builder(registry).policy(d.policy()).approvalMode(d.approvalMode());
        settings.toolHooks().forEach(b::hook);
        if (d.approvalMode() == ApprovalMode.AUTO) {
            AgentRuntime.PRE_APPROVED_IN_AUTO.forEach(name -> b.approvalRule(ApprovalRule.autoApprove(name)));
        }
        // Listed after the auto-approvals: an always-ask rule wins over them.
        d.toolRules().stream().filter(r -> r instanceof ToolRule.RequiresApproval)
                .forEach(r -> b.approvalRule(ApprovalRule.alwaysAsk(r.tool())));
        // A Python tool runs code an agent file brought: it asks in every approval mode, yolo too.
        d.declaredTools().stream().filter(t -> t.isPython() && settings.pythonRunner().isPresent() && !own.containsKey(t.name())
                        && !catalog.containsKey(t.name()))
                .forEach(t -> b.approvalRule(ApprovalRule.alwaysAsk(t.name())));
        built.set(b.build());
        return built.get();
    }
}
