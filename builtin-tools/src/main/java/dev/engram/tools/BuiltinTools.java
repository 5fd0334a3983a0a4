package dev.engram.tools;

import dev.engram.framework.AiTool;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolContext;
import dev.engram.memory.FileLimits;
import dev.engram.memory.Fusion;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.ScheduleLimits;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The tools every Engram agent is born with, one call per group:
 *
 * <pre>{@code
 * registry.registerAll(BuiltinTools.memory(store, search, PermissionBroker.denyAll()));   // block, recall, search
 * registry.registerAll(BuiltinTools.notes(store, search));                              // memory_search/save/update/delete
 * registry.register(BuiltinTools.sendMessage(router));                                  // send_message
 * registry.register(BuiltinTools.schedule(store));                                       // schedule
 * registry.registerAll(BuiltinTools.work(store));                                        // write_todos and the goal tools
 * registry.registerAll(BuiltinTools.files(Workspace.of(dir)));                          // file_*
 * registry.register(BuiltinTools.shell(workspace, ShellOptions.of("git", "ls")));      // shell_exec, sandboxed if bwrap is installed
 * registry.registerAll(BuiltinTools.web(WebFetcher.http(),
 *         SearchProviders.fromEnvironment(System.getenv())));                              // web_fetch, web_search if a provider is set
 * }</pre>
 *
 * Every tool takes its user and agent from the call's {@code ToolContext}; a call without the
 * identity it needs gets an error result.
 */
public final class BuiltinTools {
    /**
     * The name of the tool that hands a message to the user (or another agent); its result says which
     * ({@link dev.engram.framework.ToolEffect#MESSAGE_TO_USER}).
     */
    public static final String SEND_MESSAGE = SendMessageTool.NAME;

    /**
     * The tools whose calls change only the user's and agent's memory (Engram's note tools and Letta's memory tools),
     * for approval policies. What a call did, an agent loop reads from its result ({@link dev.engram.framework.ToolEffect}).
     */
    public static final List<String> MEMORY_EDITS = List.of("memory_save", "memory_update", "memory_delete",
            "core_memory_append", "core_memory_replace", "memory_insert", "memory_replace", "memory_rethink", "memory",
            "archival_memory_insert");

    /**
     * The work-state tools ({@link #work}), whose calls change only the calling agent's own todos and goals, for
     * approval policies.
     */
    public static final List<String> WORK_STATE_EDITS = List.of(WorkTools.WRITE_TODOS, WorkTools.CREATE_GOAL,
            WorkTools.SWITCH_GOAL, WorkTools.COMPLETE_GOAL, WorkTools.CREATE_CHECKPOINT, WorkTools.RECORD_DECISION);

    private BuiltinTools() {
    }

    /** {@code block}, {@code recall} and {@code search}, with default {@link MemoryToolOptions}. */
    public static List<DynamicTool> memory(MemoryStore store, MemorySearch search, PermissionBroker broker) {
        return memory(store, search, broker, MemoryToolOptions.defaults());
    }

    public static List<DynamicTool> memory(MemoryStore store, MemorySearch search, PermissionBroker broker,
            MemoryToolOptions options) {
        Objects.requireNonNull(store, "store must not be null");
        Objects.requireNonNull(search, "search must not be null");
        Objects.requireNonNull(broker, "broker must not be null");
        Objects.requireNonNull(options, "options must not be null");
        return wrap(List.of(new BlockTool(store, broker, options.consentTimeout(), options.loadLimit(), options.archivalPermission()),
                new RecallTool(store, options.archivalPermission()), new SearchTool(store, search, options.fusion())));
    }

    /**
     * Letta's memory tools, with Letta's names and argument shapes, under the same permission rules as
     * {@code block} and {@code recall}: {@code core_memory_append}, {@code core_memory_replace},
     * {@code memory_insert}, {@code memory_replace}, {@code memory_rethink}, {@code memory_finish_edits},
     * {@code memory}, {@code archival_memory_insert}, {@code archival_memory_search} and
     * {@code conversation_search}. ({@code send_message} is Engram's own, which takes Letta's arguments.)
     */
    public static List<DynamicTool> letta(MemoryStore store, MemorySearch search, PermissionBroker broker,
            MemoryToolOptions options) {
        Objects.requireNonNull(store, "store must not be null");
        Objects.requireNonNull(search, "search must not be null");
        Objects.requireNonNull(broker, "broker must not be null");
        Objects.requireNonNull(options, "options must not be null");
        List<AiTool<?, ?>> tools = new java.util.ArrayList<>(LettaMemoryTools.all(new BlockAccess(store, broker,
                options.consentTimeout())));
        tools.addAll(LettaRecallTools.all(store, search, options.archivalPermission(), options.fusion()));
        return wrap(tools);
    }

    /**
     * Letta's file tools over the folders attached to the calling agent, with Letta's names and argument shapes:
     * {@code open_files}, {@code grep_files} and {@code semantic_search_files}. {@code limits} gives each agent's
     * {@link FileLimits} (how many files it keeps open).
     */
    public static List<DynamicTool> lettaFiles(MemoryStore store, MemorySearch search, Function<Scope, FileLimits> limits) {
        Objects.requireNonNull(store, "store must not be null");
        Objects.requireNonNull(search, "search must not be null");
        Objects.requireNonNull(limits, "limits must not be null");
        return wrap(LettaFileTools.all(store, search, limits));
    }

    /** The note tools, searching with {@link Fusion#defaults()}. */
    public static List<DynamicTool> notes(MemoryStore store, MemorySearch search) {
        Fusion d = Fusion.defaults();
        return notes(store, search, d.ftsWeight(), d.vectorWeight());
    }

    /** The note tools, with the hybrid weights of {@code memory_search}. */
    public static List<DynamicTool> notes(MemoryStore store, MemorySearch search, double ftsWeight, double vectorWeight) {
        Objects.requireNonNull(store, "store must not be null");
        Objects.requireNonNull(search, "search must not be null");
        return wrap(NoteTools.all(store, search, Fusion.weighted(ftsWeight, vectorWeight)));
    }

    /**
     * {@code schedule}: messages the agent receives later, once or by cron, kept in {@code store}; an agent runtime's
     * scheduler delivers them.
     */
    public static DynamicTool schedule(MemoryStore store) {
        return schedule(store, ScheduleLimits.defaults());
    }

    /** {@link #schedule(MemoryStore)} creating schedules within {@code limits} (minimum interval, how far ahead). */
    public static DynamicTool schedule(MemoryStore store, ScheduleLimits limits) {
        Objects.requireNonNull(store, "store must not be null");
        Objects.requireNonNull(limits, "schedule limits must not be null");
        return DynamicTool.deferred(new ScheduleTool(store, limits));
    }

    /**
     * The work-state tools over {@code store.work()}: {@code write_todos}, {@code create_goal}, {@code switch_goal},
     * {@code complete_goal}, {@code create_checkpoint} and {@code record_decision}. They change only the calling agent's
     * own todos and goals, which an agent runtime renders into its prompt.
     */
    public static List<DynamicTool> work(MemoryStore store) {
        Objects.requireNonNull(store, "store must not be null");
        return wrap(WorkTools.all(store));
    }

    /** {@code read_reasoning}: the calling agent reads its own earlier reasoning, kept in recall memory. Read-only. */
    public static DynamicTool reasoning(MemoryStore store) {
        Objects.requireNonNull(store, "store must not be null");
        return DynamicTool.deferred(new ReasoningTool(store));
    }

    /** {@code write_memory_dump}: a snapshot of the calling agent's memory into a file of {@code workspace}. */
    public static DynamicTool memoryDump(MemoryStore store, Workspace workspace) {
        Objects.requireNonNull(store, "store must not be null");
        Objects.requireNonNull(workspace, "workspace must not be null");
        return DynamicTool.deferred(new MemoryDumpTool(store, workspace));
    }

    public static DynamicTool sendMessage(MessageRouter router) {
        Objects.requireNonNull(router, "router must not be null");
        return DynamicTool.deferred(new SendMessageTool(router));
    }

    /**
     * {@code file_read}, {@code read_many_files}, {@code glob}, {@code file_list}, {@code file_search},
     * {@code file_write}, {@code file_edit}, {@code file_delete}.
     */
    public static List<DynamicTool> files(Workspace workspace) {
        Objects.requireNonNull(workspace, "workspace must not be null");
        List<AiTool<?, ?>> tools = new java.util.ArrayList<>(FileTools.all(workspace));
        tools.add(1, new ReadManyFilesTool(workspace));
        tools.add(2, new GlobTool(workspace));
        return wrap(tools);
    }

    /**
     * {@code shell_exec}.
     *
     * @throws IllegalArgumentException for {@link ShellOptions.Backend#SESSION}, which needs
     *                                  {@link #shell(Workspace, ShellOptions, ShellSessions)}
     */
    public static DynamicTool shell(Workspace workspace, ShellOptions options) {
        Objects.requireNonNull(workspace, "workspace must not be null");
        Objects.requireNonNull(options, "options must not be null");
        return DynamicTool.deferred(new ShellTool(workspace, options));
    }

    /**
     * {@code shell_exec} with {@link ShellOptions.Backend#SESSION} (a persistent sandboxed shell per agent and session,
     * owned by {@code sessions}); other backends ignore {@code sessions}.
     *
     * @throws IllegalStateException when {@code bwrap} is not installed (apt-get install bubblewrap util-linux)
     */
    public static DynamicTool shell(Workspace workspace, ShellOptions options, ShellSessions sessions) {
        Objects.requireNonNull(workspace, "workspace must not be null");
        Objects.requireNonNull(options, "options must not be null");
        Objects.requireNonNull(sessions, "sessions must not be null");
        return DynamicTool.deferred(options.backend() == ShellOptions.Backend.SESSION ? new ShellTool(workspace, options, sessions)
                : new ShellTool(workspace, options));
    }

    /**
     * {@code web_fetch}, and {@code web_search} through {@code providers} in turn (see {@link SearchProviders}); with
     * no provider, {@code web_search} is not offered.
     */
    public static List<DynamicTool> web(WebFetcher fetcher, List<SearchProvider> providers) {
        Objects.requireNonNull(fetcher, "fetcher must not be null");
        Objects.requireNonNull(providers, "providers must not be null");
        // Without a provider there is no web search to offer: the model is not shown a tool that can only fail.
        return providers.isEmpty() ? wrap(List.of(WebTools.fetch(fetcher)))
                : wrap(List.of(WebTools.fetch(fetcher), WebTools.search(providers)));
    }

    /**
     * {@code canvas}: the agent writes interactive HTML artefacts for its user, versioned, kept in {@code store}
     * ({@link MemoryStore#canvases()}).
     */
    public static DynamicTool canvas(MemoryStore store) {
        Objects.requireNonNull(store, "store must not be null");
        return DynamicTool.deferred(new CanvasTool(store));
    }

    /**
     * {@code message}: sends text and links out of the conversation through one of {@code channels} (the model picks
     * one by name, never an address).
     *
     * @throws IllegalArgumentException if there is no channel, or two have one name
     */
    public static DynamicTool message(List<OutboundChannel> channels) {
        Objects.requireNonNull(channels, "channels must not be null");
        return DynamicTool.deferred(new MessageTool(List.copyOf(channels), java.time.Clock.systemUTC()));
    }

    /**
     * {@code vault_list} and {@code vault_copyto}: the items of {@code vault} that an agent may use, copied into
     * {@code workspace} by name without their content passing through the model; {@code store} knows the agents' names.
     */
    public static List<DynamicTool> vault(Vault vault, Workspace workspace, MemoryStore store) {
        Objects.requireNonNull(vault, "vault must not be null");
        Objects.requireNonNull(workspace, "workspace must not be null");
        Objects.requireNonNull(store, "store must not be null");
        return wrap(VaultTools.all(vault, workspace, store));
    }

    /**
     * Letta's {@code run_code}: a Python or JavaScript program run by {@code runner} in the sandbox, with no tools;
     * returns Letta's {@code {results, logs: {stdout, stderr}, error}}.
     */
    public static DynamicTool runCode(CodeRunner runner) {
        Objects.requireNonNull(runner, "code runner must not be null");
        return DynamicTool.deferred(new CodeTools.RunCode(runner));
    }

    /**
     * Code mode's {@code execute_code} over a fixed set of tools: a program run by {@code runner} in the sandbox, with a
     * stub for each of {@code tools}' definitions (the tool's description lists them for the model), each call going to
     * {@link ProgramTools#call}.
     */
    public static DynamicTool executeCode(CodeRunner runner, ProgramTools tools) {
        Objects.requireNonNull(runner, "code runner must not be null");
        Objects.requireNonNull(tools, "program tools must not be null");
        return DynamicTool.deferred(new CodeTools.ExecuteCode(runner, java.util.Optional.of(tools.definitions()), ctx -> tools));
    }

    /**
     * Code mode's {@code execute_code} whose tools depend on the call ({@code tools} finds them from its context, such
     * as the calling agent's); its description names no function.
     */
    public static DynamicTool executeCode(CodeRunner runner, java.util.function.Function<ToolContext, ProgramTools> tools) {
        Objects.requireNonNull(runner, "code runner must not be null");
        Objects.requireNonNull(tools, "program tools must not be null");
        return DynamicTool.deferred(new CodeTools.ExecuteCode(runner, java.util.Optional.empty(), tools::apply));
    }

    private static List<DynamicTool> wrap(List<? extends AiTool<?, ?>> tools) {
        return tools.stream().map(DynamicTool::deferred).toList();
    }

    /**
     * Settings of the memory tools.
     *
     * @param consentTimeout     how long {@code block} waits for the permission broker
     * @param archivalPermission the agent's permission over its archival memory ({@code recall}; {@code block} archive and swap)
     * @param loadLimit          the character limit of a block loaded from archival memory
     * @param fusion             how {@code search} fuses BM25 and vector results
     */
    public record MemoryToolOptions(Duration consentTimeout, MemoryPermission archivalPermission, int loadLimit, Fusion fusion) {
        public MemoryToolOptions {
            Objects.requireNonNull(consentTimeout, "consentTimeout");
            Objects.requireNonNull(archivalPermission, "archivalPermission");
            Objects.requireNonNull(fusion, "fusion");
            if (consentTimeout.isNegative() || consentTimeout.isZero()) {
                throw new IllegalArgumentException("consent timeout must be positive, got " + consentTimeout);
            }
            if (loadLimit < 1) {
                throw new IllegalArgumentException("load limit must be positive, got " + loadLimit);
            }
        }

        /** 2 minutes for consent, read_write archival memory, 5,000-character loaded blocks, {@link Fusion#defaults()}. */
        public static MemoryToolOptions defaults() {
            return new MemoryToolOptions(Duration.ofMinutes(2), MemoryPermission.READ_WRITE, NewBlock.DEFAULT_LIMIT, Fusion.defaults());
        }

        public MemoryToolOptions withConsentTimeout(Duration timeout) {
            return new MemoryToolOptions(timeout, archivalPermission, loadLimit, fusion);
        }

        public MemoryToolOptions withArchivalPermission(MemoryPermission permission) {
            return new MemoryToolOptions(consentTimeout, permission, loadLimit, fusion);
        }
    }
}
