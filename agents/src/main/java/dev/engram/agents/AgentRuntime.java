package dev.engram.agents;

import dev.engram.framework.ApprovalHandler;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ModelPolicy;
import dev.engram.framework.ToolHook;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.model.ChatModel;
import dev.engram.memory.AgentRecord;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.FileLimits;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.ScheduleLimits;
import dev.engram.memory.Scope;
import dev.engram.tools.BuiltinTools;
import dev.engram.tools.OutboundChannel;
import dev.engram.tools.Vault;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.PermissionBroker;
import dev.engram.tools.ShellOptions;
import dev.engram.tools.ShellSessions;
import dev.engram.tools.Workspace;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates, loads and runs agents over one {@link MemoryStore} and {@link MemorySearch}.
 *
 * <pre>{@code
 * try (MemoryStore store = MemoryStore.sqlite(Path.of("engram.db"));
 *      MemorySearch search = MemorySearch.lucene(store, Embedder.onnxDefault(), Path.of("index"));
 *      AgentRuntime runtime = AgentRuntime.builder(store, search).build()) {
 *     Agent agent = runtime.create(AgentDefinition.builder("ana").name("helper").model("openai:gpt-4o-mini")
 *             .block("human", "What I know about the user", "").build());
 *     System.out.println(agent.send("Hi, I'm Ana and I like tea.").reply().orElse(""));
 * }
 * }</pre>
 *
 * <p>Agents are persisted when created and loaded lazily, by id, on first use; a runtime opened
 * tomorrow over the same store finds them with the same blocks and in-context messages. The
 * runtime owns neither the store nor the search: close those yourself, after the runtime.
 *
 * <h2>Tools</h2>
 * Every agent can be given the built-in tools ({@code send_message}, {@code block}, {@code recall},
 * {@code search}, {@code memory_search/save/update/delete}), {@code spawn_subagent}, the workspace
 * tools when the runtime has a {@link Builder#workspace workspace}, and any tool added with
 * {@link Builder#tool}, and {@code schedule}, whose messages the runtime's {@link #scheduler()} delivers. An agent names the ones it uses in its definition. In
 * {@link ApprovalMode#AUTO} the agent's own memory tools ({@link #PRE_APPROVED_IN_AUTO}) run without
 * asking; every other side-effecting tool asks the runtime's {@link ApprovalHandler}.
 *
 * <p>Thread-safe; many agents run in parallel, each one message at a time.
 */
public final class AgentRuntime implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AgentRuntime.class);

    /**
     * Tools that change only the agent's own memory (guarded by block permissions), its own todos, goals, sessions and
     * context, or talk (to the user, or to the user's own agents), pre-approved in AUTO; and the code tools, whose
     * programs reach nothing outside the sandbox but through tool calls that ask on their own. ({@code write_memory_dump} writes a file of the workspace: it asks, as
     * {@code file_write} does.)
     */
    public static final List<String> PRE_APPROVED_IN_AUTO = java.util.stream.Stream.of(
            java.util.stream.Stream.of("send_message", MultiAgentTools.WAIT_FOR_REPLY, MultiAgentTools.MATCHING_TAGS,
                    MultiAgentTools.ASYNC, "block", "recall", SubagentTool.NAME, "memory_finish_edits", "schedule",
                    SessionTools.SEND, SessionTools.PATCH, HotSwapTool.NAME, "canvas",
                    CodeMode.RUN_CODE, CodeMode.EXECUTE_CODE),
            BuiltinTools.MEMORY_EDITS.stream(), BuiltinTools.WORK_STATE_EDITS.stream()).flatMap(s -> s).toList();

    /** The default highest step cap of an imported agent: 50 model calls per message. */
    public static final int DEFAULT_MAX_IMPORTED_STEPS = 50;
    /** The user an agent file is imported for when the caller names none: {@code local}, as on the command line. */
    public static final String DEFAULT_IMPORT_USER = "local";

    private final MemoryStore store;
    private final MemorySearch search;
    private final RuntimeHub hub;
    private final AgentRegistry agents;
    private final AgentTransfer transfer;
    private final Sleeptime sleeptime = new Sleeptime();
    private final AgentScheduler scheduler;
    private final ModelPolicy modelPolicy;
    private volatile boolean closed;
    private final Optional<ShellSessions> shellSessions;
    private final Optional<CodeRunner> code;

    private AgentRuntime(Builder b) {
        this.store = b.store;
        this.search = b.search;
        this.hub = new RuntimeHub(b.models, b.modelResolver, b.listeners);
        AgentSettings settings = new AgentSettings(store, hub::model, hub::emit, Optional.ofNullable(b.approvalHandler),
                Optional.ofNullable(b.workspace).map(Workspace::root), b.agentReplyTimeout, b.maxCorrections,
                b.loopBreakerThreshold, b.memoryPressureThreshold, () -> !closed, Optional.ofNullable(b.pythonTools), b.unsandboxedHostShell,
                sleeptime, List.copyOf(b.toolHooks), List.copyOf(b.turnHooks), Optional.ofNullable(b.shellSessions));
        this.shellSessions = Optional.ofNullable(b.shellSessions);
        this.code = Optional.ofNullable(b.code);
        ActiveTurns turns = new ActiveTurns();
        Map<String, DynamicTool> catalog = new ConcurrentHashMap<>();
        this.agents = new AgentRegistry(settings, turns, b.tokenCounters, catalog, Optional.ofNullable(b.code), b.userTools,
                b.maxLoadedAgents);
        ModelPolicy policy = b.modelPolicy;
        for (String spec : b.models.keySet()) {
            policy = policy.allowSpec(spec);
        }
        this.modelPolicy = policy;
        this.transfer = new AgentTransfer(store, agents, policy, b.maxImportedSteps);
        sleeptime.attach(agents);
        this.scheduler = new AgentScheduler(store, this::agent, () -> !closed, b.scheduleLimits);

        ToolCatalog.fill(catalog, new ToolCatalog.Sources(store, search, b.broker, b.agentReplyTimeout, b.maxAgentDepth, b.workspace,
                runtimeShell(b), b.webFetcher, b.searchProviders, b.tools, b.scheduleLimits, b.shellSessions, List.copyOf(b.channels), b.vault, b.code),
                agents, turns,
                hub::emit);
    }

    /** The runtime's own shell: in a session per agent and session when the host chose that, else as given. */
    private static ShellOptions runtimeShell(Builder b) {
        if (b.shell == null || b.shell.backend() == ShellOptions.Backend.DISABLED) {
            return b.shell;
        }
        if (b.shellSessions != null) {
            return b.shell.withShellSyntax().withBackend(ShellOptions.Backend.SESSION);
        }
        return b.unsandboxedHostShell ? b.shell.withUnsandboxedHostFallback() : b.shell;
    }

    /** How many agents are loaded now (at most the bound, {@link Builder#maxLoadedAgents}, once idle ones can go). */
    int loadedAgents() {
        return agents.loadedCount();
    }

        /** A builder over {@code store} and {@code search} (which must index that store). */
    public static Builder builder(MemoryStore store, MemorySearch search) {
        return new Builder(store, search);
    }

    /**
     * Persists a new agent and its blocks, and returns it loaded.
     *
     * @throws AgentException if the id or name is taken for the user, or the definition names a tool
     *                        this runtime does not have; nothing is stored then
     */
    public Agent create(AgentDefinition definition) {
        Objects.requireNonNull(definition, "definition must not be null");
        return agents.create(definition);
    }

    /**
     * The agent, loaded from the store on first use.
     *
     * @throws AgentNotFoundException if the user has no agent with that id
     */
    public Agent agent(String userId, String agentId) {
        Objects.requireNonNull(userId, "user id must not be null");
        Objects.requireNonNull(agentId, "agent id must not be null");
        return agents.agent(userId, agentId);
    }

    /**
     * The agent as stored now: like {@link #agent}, but a loaded agent whose definition another process changed
     * (servers sharing one database) takes the stored definition first, and one another process deleted is not
     * found. It reads the agent's record, so it costs a query where {@code agent} costs none.
     *
     * @throws AgentNotFoundException if the user has no agent with that id
     */
    public Agent current(String userId, String agentId) {
        Objects.requireNonNull(userId, "user id must not be null");
        Objects.requireNonNull(agentId, "agent id must not be null");
        return agents.current(userId, agentId);
    }

    /**
     * The model of a spec as this runtime's agents get it (registered, or resolved once and kept): for work done for an
     * agent outside its turns, such as extracting memory on its model.
     *
     * @throws AgentException if the spec cannot be resolved; the message says what to set
     */
    public ChatModel model(String spec) {
        Objects.requireNonNull(spec, "model spec must not be null");
        return hub.model(spec);
    }

    /**
     * The user's one agent with that name, loaded on first use; empty if the user has none.
     *
     * @throws AgentException if several agents of the user share the name (ids identify agents); the message lists their ids
     */
    public Optional<Agent> findByName(String userId, String name) {
        checkOpen();
        List<AgentRecord> named = store.agents().findByName(userId, name);
        if (named.size() > 1) {
            throw new AgentException("User '" + userId + "' has " + named.size() + " agents named '" + name + "' (ids "
                    + String.join(", ", named.stream().map(r -> r.scope().agentId()).toList()) + "); name one by its id.");
        }
        return named.stream().findFirst().map(r -> agent(userId, r.scope().agentId()));
    }

    /** The user's agents' definitions, by name. */
    public List<AgentDefinition> list(String userId) {
        checkOpen();
        return store.agents().list(userId).stream().map(agents::definitionOf).toList();
    }

    /**
     * Deletes an agent's definition. Its blocks, archival memory and messages stay in the store (recall
     * memory is never deleted); an agent created again with the same id finds them.
     *
     * @return whether the agent existed
     * @throws AgentException if the agent is working on a message
     */
    public boolean delete(String userId, String agentId) {
        checkOpen();
        Scope scope = Scope.of(userId, agentId);
        agents.unload(scope);
        return store.agents().delete(scope);
    }

    /** Writes the agent (definition, blocks, archival memory, every message) to a JSON file. */
    public void exportAgent(String userId, String agentId, Path file) {
        Objects.requireNonNull(file, "file must not be null");
        transfer.exportEngram(agent(userId, agentId), file);
    }

    /** The agent file's JSON. */
    public String exportAgent(String userId, String agentId) {
        return transfer.exportEngram(agent(userId, agentId));
    }

    /**
     * Imports an agent file of either format (Engram's own, or a Letta Agent File) and returns its first agent; see
     * {@link #importAgentFile}, which also reports what the import dropped.
     *
     * @throws AgentException if the file is not a valid agent file, names a model the policy does not allow and no
     *                        model is given, or an id is taken; nothing is stored then
     */
    public Agent importAgent(AgentImport file) {
        return importAgentFile(file).agents().getFirst();
    }

    /**
     * Imports an agent file of either format (Engram's own, or a Letta Agent File) for {@link AgentImport#user()},
     * whatever user the file names. An import never grants: the file's models must be ones {@link #modelPolicy()}
     * allows (or {@link AgentImport#model} replaces them, the sleep-time companion's too), and what it asks beyond the
     * importer's defaults (a looser approval mode, more steps than {@link Builder#maxImportedSteps}, a workspace,
     * shell or web access of its own, acting for or descending from another agent, blocks of agents outside the file)
     * is dropped and listed in {@link AgentFileImport#dropped()}.
     *
     * @throws AgentException if the file is invalid, names a model the policy does not allow and no model is given,
     *                        or an id is taken; nothing is stored then
     */
    public AgentFileImport importAgentFile(AgentImport file) {
        checkOpen();
        Objects.requireNonNull(file, "import must not be null");
        return LettaAgentFile.isLetta(file.json()) ? importLettaAgentFile(file)
                : transfer.importEngram(file.json(), file.source(), file.user(), file.agentId(), file.model());
    }

    /**
     * Imports a Letta Agent File ({@code .af}): every agent in it, for {@link AgentImport#user()}, with its system
     * prompt, agent type, blocks (shared between the file's agents where they share them), tools (Letta's built-ins
     * as Engram's; custom tools declared with their schemas, see {@link DeclaredTool}), tool rules, messages and
     * which are in context, tags and model. All or nothing: a file with anything wrong stores nothing and says which
     * field. By default ids come from the agents' names; {@link AgentImport#agentId} sets it for a file of one agent.
     *
     * @see #importAgentFile
     */
    public AgentFileImport importLettaAgentFile(AgentImport file) {
        checkOpen();
        Objects.requireNonNull(file, "import must not be null");
        return transfer.importLetta(file);
    }

    /** The agents (of one user) as one Letta Agent File, blocks they share written once. */
    public String exportLettaAgentFile(String userId, List<String> agentIds) {
        if (agentIds.isEmpty()) {
            throw new IllegalArgumentException("name at least one agent to export");
        }
        return transfer.exportLetta(agentIds.stream().map(id -> agent(userId, id)).toList());
    }

    /** Whether the JSON text is a Letta Agent File (rather than Engram's own agent file). */
    public static boolean isLettaAgentFile(String json) {
        return LettaAgentFile.isLetta(json);
    }

    /** Adds a listener for every agent's events. */
    public void addListener(AgentListener listener) {
        hub.listeners().add(Objects.requireNonNull(listener, "listener must not be null"));
    }

    public boolean removeListener(AgentListener listener) {
        return hub.listeners().remove(listener);
    }

    /** The names of every tool an agent of this runtime can be given. */
    public List<String> availableTools() {
        return agents.availableTools();
    }

    /**
     * The models a spec from outside the operator's code may name: this runtime's {@link Builder#modelPolicy}, plus
     * every spec registered with {@link Builder#model}. Imports check every model of a file against it; a server
     * checks its API users' models against it.
     */
    public ModelPolicy modelPolicy() {
        return modelPolicy;
    }

    /** The sandboxed code runner the host enabled ({@link Builder#code}), which runs tools written from source too. */
    public Optional<CodeRunner> codeRunner() {
        return code;
    }

    /**
     * A registry of every tool agents of this runtime can be given, for hosts that call tools
     * directly (the CLI's {@code tools call}, an MCP server). Each call is a new registry.
     */
    public ToolRegistry toolRegistry() {
        return agents.toolRegistry();
    }

    /**
     * Adds a tool while the runtime runs; agents that name it (a declared tool of an agent file, or after
     * {@link #changeTools}) offer it from their next step.
     *
     * @throws IllegalArgumentException if the runtime has a tool of that name (use {@link #replaceTool})
     */
    public void registerTool(DynamicTool tool) {
        agents.addTool(Objects.requireNonNull(tool, "tool must not be null"), false);
    }

    /**
     * Re-reads the tools of {@code userId}'s loaded agents from the runtime and the {@link Builder#userTools}: call it
     * when that user's own tools changed (an MCP server's tools were listed again). An agent that names a tool which is
     * gone keeps its previous tools until its tools are changed.
     */
    public void retool(String userId) {
        agents.retoolUser(Objects.requireNonNull(userId, "user id must not be null"));
    }

    /** Replaces the runtime's tool of that name, a built-in too, deliberately; agents use the new one from their next step. */
    public void replaceTool(DynamicTool tool) {
        agents.addTool(Objects.requireNonNull(tool, "tool must not be null"), true);
    }

    /**
     * Changes the tools an agent may call; the change is stored and a loaded agent offers them from its
     * next step.
     *
     * @throws AgentException if it names a tool the runtime does not have; nothing changes then
     */
    public Agent changeTools(String userId, String agentId, List<String> tools) {
        checkOpen();
        return agents.changeTools(userId, agentId, List.copyOf(tools));
    }

    /**
     * Changes an agent's definition: its name, system prompt, model, context window, step cap, tags, tools,
     * tool rules and the like (its initial blocks and shared blocks were applied when it was created; change
     * its memory through the store). The changed definition is checked before anything is stored, stored, and
     * a loaded agent uses it from its next step.
     *
     * @throws AgentException           if the change gives the agent another id or user, or names a tool the
     *                                  runtime does not have; nothing changes then
     * @throws IllegalArgumentException if {@code change} builds an invalid definition; nothing changes then
     * @throws dev.engram.memory.DuplicateException if the new name is another agent's of the same user
     */
    public Agent modify(String userId, String agentId, java.util.function.UnaryOperator<AgentDefinition> change) {
        checkOpen();
        return agents.modify(userId, agentId, Objects.requireNonNull(change, "change must not be null"));
    }

    /**
     * Attaches the user's folder to the agent as Letta does: the folder's newest files open in the agent's prompt (as
     * many as its {@link FileLimits} allow) and the agent gets Letta's file tools ({@link LettaTools#FILE_TOOLS}).
     * Attaching an attached folder changes nothing.
     *
     * @throws AgentNotFoundException           if the user has no such agent
     * @throws dev.engram.memory.NotFoundException if the user has no such folder; nothing changes then
     */
    public Agent attachFolder(String userId, String agentId, String folderId) {
        checkOpen();
        return AgentFolderTools.attach(agents, store, userId, agentId, folderId);
    }

    /**
     * The file limits of the agent of {@code scope} ({@link AgentDefinition#fileLimits}): how many files it keeps open and
     * how much of each its prompt shows; Letta's defaults for an agent of unknown context window when there is no such
     * agent (a folder's upload asks for each agent the folder is attached to).
     */
    public FileLimits fileLimits(Scope scope) {
        checkOpen();
        return ToolCatalog.fileLimits(agents, Objects.requireNonNull(scope, "scope must not be null"));
    }

    /**
     * Detaches the folder from the agent: its files leave the agent's prompt, and with the last folder the agent loses
     * the file tools (those no tool rule of its names).
     *
     * @throws AgentNotFoundException           if the user has no such agent
     * @throws dev.engram.memory.NotFoundException if the user has no such folder; nothing changes then
     */
    public Agent detachFolder(String userId, String agentId, String folderId) {
        checkOpen();
        return AgentFolderTools.detach(agents, store, userId, agentId, folderId);
    }

    /**
     * Gives an agent other workspace, shell and web tools of its own ({@link ToolAccess}), stored with it; a loaded
     * agent offers them from its next step.
     *
     * @throws AgentException if the workspace cannot be used; nothing changes then
     */
    public Agent changeToolAccess(String userId, String agentId, ToolAccess access) {
        checkOpen();
        return agents.changeToolAccess(userId, agentId, Objects.requireNonNull(access, "tool access must not be null"));
    }

    /**
     * Gives an agent other workspace, shell and web tools for as long as this runtime keeps it loaded (a chat
     * session), storing nothing: its stored definition keeps the tools it had, and so does any change made to it
     * meanwhile ({@link #modify}, {@link #changeToolAccess}). To keep them, use {@link #changeToolAccess}.
     *
     * @throws AgentException if the workspace cannot be used; nothing changes then
     */
    public Agent useToolAccess(String userId, String agentId, ToolAccess access) {
        checkOpen();
        return agents.useToolAccess(userId, agentId, Objects.requireNonNull(access, "tool access must not be null"));
    }

    /** Delivers the agents' scheduled messages; {@linkplain AgentScheduler#start start} it, or call {@code runDue()}. */
    public AgentScheduler scheduler() {
        return scheduler;
    }

    public MemoryStore store() {
        return store;
    }

    public MemorySearch search() {
        return search;
    }

    /**
     * Stops accepting messages. Steps in progress finish; the store and the search stay open (they
     * are the caller's to close); the {@linkplain Builder#shellSessions shell sessions} are closed, their processes
     * killed. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        scheduler.stop();
        sleeptime.close();
        agents.cancelAll();
        shellSessions.ifPresent(ShellSessions::close);
    }

    /** Waits until the agent's sleep-time companion is not running; false if it still is after {@code timeout}. */
    public boolean awaitSleeptime(String userId, String agentId, java.time.Duration timeout) throws InterruptedException {
        return sleeptime.awaitIdle(Scope.of(userId, agentId), timeout);
    }

    // ---------------------------------------------------------------------------------------------
    // Given to the agents as values (AgentSettings)

    private void checkOpen() {
        if (closed) {
            throw new AgentException("The agent runtime is closed.");
        }
    }

    /** Configures an {@link AgentRuntime}; every setter validates at once. */
    public static final class Builder {
        /** The most agents a runtime keeps loaded unless told otherwise ({@link #maxLoadedAgents}). */
        public static final int DEFAULT_MAX_LOADED_AGENTS = 1_000;
        private final MemoryStore store;
        private final MemorySearch search;
        private final Map<String, ChatModel> models = new LinkedHashMap<>();
        private Function<String, ChatModel> modelResolver = ChatModel::of;
        private PermissionBroker broker = PermissionBroker.denyAll();
        private ApprovalHandler approvalHandler;
        private dev.engram.tools.PythonTools pythonTools;
        private Workspace workspace;
        private dev.engram.tools.ShellOptions shell;
        private boolean unsandboxedHostShell;
        private ShellSessions shellSessions;
        private dev.engram.tools.WebFetcher webFetcher;
        private CodeRunner code;
        private UserTools userTools = UserTools.none();
        private List<dev.engram.tools.SearchProvider> searchProviders = List.of();
        private final List<DynamicTool> tools = new ArrayList<>();
        private final List<OutboundChannel> channels = new ArrayList<>();
        private Vault vault;
        private final List<AgentListener> listeners = new ArrayList<>();
        private final List<ToolHook> toolHooks = new ArrayList<>();
        private final List<TurnHook> turnHooks = new ArrayList<>();
        private Function<String, TokenCounter> tokenCounters = TokenCounter::forModel;
        private int maxAgentDepth = 3;
        private Duration agentReplyTimeout = Duration.ofMinutes(5);
        private int maxCorrections = 3;
        private int loopBreakerThreshold = 3;
        private double memoryPressureThreshold = 0.75;
        private ScheduleLimits scheduleLimits = ScheduleLimits.defaults();
        private ModelPolicy modelPolicy = ModelPolicy.providersOnly();
        private int maxImportedSteps = DEFAULT_MAX_IMPORTED_STEPS;
        private int maxLoadedAgents = DEFAULT_MAX_LOADED_AGENTS;

        private Builder(MemoryStore store, MemorySearch search) {
            this.store = Objects.requireNonNull(store, "store must not be null");
            this.search = Objects.requireNonNull(search, "search must not be null");
        }

        /**
         * Uses {@code model} for agents whose model spec is {@code spec} (e.g. a scripted model in
         * tests, or a provider client you configured yourself).
         */
        public Builder model(String spec, ChatModel model) {
            Objects.requireNonNull(spec, "model spec must not be null");
            models.put(spec, Objects.requireNonNull(model, "model must not be null"));
            return this;
        }

        /** How other model specs become models; default {@link ChatModel#of(String)} (reads API keys from the environment). */
        public Builder modelResolver(Function<String, ChatModel> resolver) {
            this.modelResolver = Objects.requireNonNull(resolver, "model resolver must not be null");
            return this;
        }

        /**
         * The models an agent file may name (and a server's API users, see {@link #modelPolicy()}); default
         * {@link ModelPolicy#providersOnly()}. The specs registered with {@link #model} are always allowed, and so is
         * the model a caller of an import gives in place of the file's.
         */
        public Builder modelPolicy(ModelPolicy policy) {
            this.modelPolicy = Objects.requireNonNull(policy, "model policy must not be null");
            return this;
        }

        /**
         * The highest step cap an agent file may give an agent (and its sleep-time companion); a file asking more
         * gets this, and the import reports it. Default {@value AgentRuntime#DEFAULT_MAX_IMPORTED_STEPS}.
         */
        public Builder maxImportedSteps(int steps) {
            if (steps < 1) {
                throw new IllegalArgumentException("the step cap of imported agents must be at least 1, got " + steps);
            }
            this.maxImportedSteps = steps;
            return this;
        }

        /** Who consents to writes of partner and human blocks; default {@link PermissionBroker#denyAll()}. */
        public Builder permissionBroker(PermissionBroker broker) {
            this.broker = Objects.requireNonNull(broker, "permission broker must not be null");
            return this;
        }

        /** Who approves tool calls that need it; default none, so such calls are denied. */
        public Builder approvalHandler(ApprovalHandler handler) {
            this.approvalHandler = Objects.requireNonNull(handler, "approval handler must not be null");
            return this;
        }

        /**
         * Runs imported Python tools (Letta custom tools of an agent file) with this runner; off by default,
         * when such a call fails saying how to provide an implementation. Every call needs approval.
         */
        public Builder pythonTools(dev.engram.tools.PythonTools runner) {
            this.pythonTools = Objects.requireNonNull(runner, "python runner must not be null");
            return this;
        }

        /** Makes the file tools ({@code file_read}, ...) available, working in {@code workspace}. */
        public Builder workspace(Workspace workspace) {
            this.workspace = Objects.requireNonNull(workspace, "workspace must not be null");
            return this;
        }

        /**
         * Where bubblewrap is not installed, lets {@code shell_exec} (this runtime's and every agent's own) run
         * commands unsandboxed on the host, with argument checks only, instead of refusing them
         * ({@link dev.engram.tools.ShellOptions#withUnsandboxedHostFallback()}; {@code engram --unsafe-host-shell}).
         * Off by default. Python tools never run unsandboxed.
         */
        public Builder unsandboxedHostShell() {
            this.unsandboxedHostShell = true;
            return this;
        }

        /**
         * Gives {@code shell_exec} (this runtime's and every agent's own) a persistent shell per agent and conversation
         * session, in the bubblewrap sandbox: the working directory and exported variables carry over between calls
         * ({@link ShellOptions#session(String...)}; {@code engram --shell-session}). The runtime owns {@code sessions}
         * from here on and closes them, killing their processes, when it closes. Needs {@code bwrap}: a shell cannot be
         * created without it.
         */
        public Builder shellSessions(ShellSessions sessions) {
            this.shellSessions = Objects.requireNonNull(sessions, "shell sessions must not be null");
            return this;
        }

        /** Makes {@code shell_exec} available, for the programs {@code options} allows, in the workspace (required). */
        public Builder shell(dev.engram.tools.ShellOptions options) {
            this.shell = Objects.requireNonNull(options, "shell options must not be null");
            return this;
        }

        /**
         * Makes {@code web_fetch} available, and {@code web_search} through {@code providers} when there is
         * any (e.g. {@code SearchProviders.fromEnvironment(System.getenv())}).
         */
        public Builder web(dev.engram.tools.WebFetcher fetcher, List<dev.engram.tools.SearchProvider> providers) {
            this.webFetcher = Objects.requireNonNull(fetcher, "web fetcher must not be null");
            this.searchProviders = List.copyOf(Objects.requireNonNull(providers, "providers must not be null"));
            return this;
        }

        /**
         * Makes the {@code message} tool available, sending through {@code channel} (e.g.
         * {@link OutboundChannel#webhook}); call it once per channel, each with its own name. The model
         * picks a channel by name; where it goes is yours to set, never the model's.
         *
         * @throws IllegalArgumentException if a channel of that name is registered already
         */
        public Builder outboundChannel(OutboundChannel channel) {
            Objects.requireNonNull(channel, "outbound channel must not be null");
            if (channels.stream().anyMatch(c -> c.name().equals(channel.name()))) {
                throw new IllegalArgumentException("an outbound channel named '" + channel.name() + "' is registered already; "
                        + "give each channel its own name");
            }
            channels.add(channel);
            return this;
        }

        /**
         * Makes {@code vault_list} and {@code vault_copyto} available over {@code vault} (see
         * {@link Vault}): an agent copies the items its manifest lets it use into the workspace
         * (required), never seeing their content.
         */
        public Builder vault(Vault vault) {
            this.vault = Objects.requireNonNull(vault, "vault must not be null");
            return this;
        }

        /**
         * Enables code execution: Letta's {@code run_code} (a Python or JavaScript program alone) and code mode's
         * {@code execute_code} (a program calling the agent's other tools through stubs, each call through the agent's
         * pipeline and recorded in its conversation), both run by {@code runner} in the bubblewrap sandbox. Off by
         * default; an agent names the ones it uses.
         */
        public Builder code(CodeRunner runner) {
            this.code = Objects.requireNonNull(runner, "code runner must not be null");
            return this;
        }

        /**
         * Where the tools that belong to one user come from (a server's MCP servers): an agent may name its own user's
         * tools, after the runtime's. None by default.
         */
        public Builder userTools(UserTools source) {
            this.userTools = Objects.requireNonNull(source, "user tools must not be null");
            return this;
        }

        /** Makes a tool of your own available to agents that name it. */
        public Builder tool(DynamicTool tool) {
            tools.add(Objects.requireNonNull(tool, "tool must not be null"));
            return this;
        }

        public Builder tool(dev.engram.framework.AiTool<?, ?> tool) {
            return tool(DynamicTool.from(tool));
        }

        /**
         * Runs {@code hook} around every tool call of every agent of this runtime (its sleep-time companions' too), after
         * the hooks added before it: it may deny a call with a reason the model reads, rewrite its arguments (then
         * validated), add a note to its result for the model, or rewrite its result. See {@link ToolHook}.
         */
        public Builder toolHook(ToolHook hook) {
            toolHooks.add(Objects.requireNonNull(hook, "tool hook must not be null"));
            return this;
        }

        /** Runs {@code hook} at the start and the end of every message's turn, after the hooks added before it. */
        public Builder turnHook(TurnHook hook) {
            turnHooks.add(Objects.requireNonNull(hook, "turn hook must not be null"));
            return this;
        }

        public Builder listener(AgentListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
            return this;
        }

        /** How prompt tokens are counted for a model name; default {@link TokenCounter#forModel}. */
        public Builder tokenCounters(Function<String, TokenCounter> counters) {
            this.tokenCounters = Objects.requireNonNull(counters, "token counters must not be null");
            return this;
        }

        /** How many agents deep a chain of agent-to-agent messages and subagents may go; default 3. */
        public Builder maxAgentDepth(int depth) {
            if (depth < 1) {
                throw new IllegalArgumentException("agent depth must be at least 1, got " + depth);
            }
            this.maxAgentDepth = depth;
            return this;
        }

        /** How long a message to another agent waits for that agent to be free; default 5 minutes. */
        public Builder agentReplyTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "agent reply timeout must not be null");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("agent reply timeout must be positive, got " + timeout);
            }
            this.agentReplyTimeout = timeout;
            return this;
        }

        /** How many steps in a row may end with a failed tool call before the agent stops; default 3. */
        public Builder maxCorrections(int corrections) {
            if (corrections < 0) {
                throw new IllegalArgumentException("max corrections must not be negative, got " + corrections);
            }
            this.maxCorrections = corrections;
            return this;
        }

        /** After how many identical calls (same tool, same arguments) within one message the breaker stops the agent; default 3. */
        public Builder loopBreakerThreshold(int calls) {
            if (calls < 2) {
                throw new IllegalArgumentException("loop breaker threshold must be at least 2, got " + calls);
            }
            this.loopBreakerThreshold = calls;
            return this;
        }

        /** The share of the context window at which the prompt warns of memory pressure; default 0.75. */
        public Builder memoryPressureThreshold(double fraction) {
            if (!(fraction > 0 && fraction <= 1)) {
                throw new IllegalArgumentException("memory pressure threshold must be in (0, 1], got " + fraction);
            }
            this.memoryPressureThreshold = fraction;
            return this;
        }

        /**
         * How often schedules may fire: the {@code schedule} tool refuses a cron closer than the minimum interval and a
         * time too far ahead, and the {@link #scheduler()} skips a user's firings beyond the budget. Default
         * {@link ScheduleLimits#defaults()}.
         */
        public Builder scheduleLimits(ScheduleLimits limits) {
            this.scheduleLimits = Objects.requireNonNull(limits, "schedule limits must not be null");
            return this;
        }

        /**
         * How many agents the runtime keeps loaded (their tools, prompt parts and in-context messages in memory); past
         * that, the least recently used idle ones are let go and loaded from the store again when next asked for.
         * Default {@value #DEFAULT_MAX_LOADED_AGENTS}.
         */
        public Builder maxLoadedAgents(int agents) {
            if (agents < 1) {
                throw new IllegalArgumentException("the most agents kept loaded must be at least 1, got " + agents);
            }
            this.maxLoadedAgents = agents;
            return this;
        }

        /** @throws IllegalArgumentException if a tool of yours has the name of a built-in one */
        public AgentRuntime build() {
            return new AgentRuntime(this);
        }
    }
}
