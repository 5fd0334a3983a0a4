package dev.engram.agents;

import dev.engram.framework.DynamicTool;
import dev.engram.memory.FileLimits;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.tools.BuiltinTools;
import dev.engram.tools.OutboundChannel;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.PermissionBroker;
import dev.engram.tools.SearchProvider;
import dev.engram.tools.Vault;
import dev.engram.tools.ShellOptions;
import dev.engram.tools.ShellSessions;
import dev.engram.tools.WebFetcher;
import dev.engram.tools.Workspace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The tools a runtime can give its agents: the built-ins (memory, Letta's memory tools, notes,
 * messaging and Letta's multi-agent tools, schedules, canvas, subagents, todos and goals, sessions, context swaps),
 * the workspace (with the memory dump), shell, web, vault and outbound message tools when the builder enabled them, and the
 * host's own tools, which may not take a built-in's name.
 */
final class ToolCatalog {
    private ToolCatalog() {
    }

    /** What the catalog is made of, from the runtime's builder. */
    record Sources(MemoryStore store, MemorySearch search, PermissionBroker broker, Duration agentReplyTimeout,
            int maxAgentDepth, Workspace workspace, ShellOptions shell, WebFetcher webFetcher, List<SearchProvider> searchProviders,
            List<DynamicTool> tools, dev.engram.memory.ScheduleLimits scheduleLimits, ShellSessions shellSessions,
            List<OutboundChannel> channels, Vault vault, CodeRunner code) {
    }

    static void fill(Map<String, DynamicTool> catalog, Sources b, AgentRegistry agents, ActiveTurns turns,
            Consumer<AgentEvent> emit) {
        List<DynamicTool> builtins = new ArrayList<>();
        AgentRouter router = new AgentRouter(agents, turns, emit, b.maxAgentDepth());
        builtins.add(BuiltinTools.sendMessage(router).withTimeout(b.agentReplyTimeout().multipliedBy(2)));
        builtins.addAll(MultiAgentTools.all(router, agents, b.agentReplyTimeout()));
        builtins.addAll(BuiltinTools.memory(b.store(), b.search(), b.broker()));
        builtins.addAll(BuiltinTools.letta(b.store(), b.search(), b.broker(), BuiltinTools.MemoryToolOptions.defaults()));
        builtins.addAll(BuiltinTools.lettaFiles(b.store(), b.search(), scope -> fileLimits(agents, scope)));
        builtins.addAll(BuiltinTools.notes(b.store(), b.search()));
        builtins.add(BuiltinTools.schedule(b.store(), b.scheduleLimits()));
        builtins.add(BuiltinTools.canvas(b.store()));
        builtins.add(DynamicTool.deferred(new SubagentTool(agents, turns, b.agentReplyTimeout(), b.maxAgentDepth())));
        // The workbench tools: opt-in per agent (none is among AgentDefinition.DEFAULT_TOOLS), as schedule is.
        builtins.addAll(BuiltinTools.work(b.store()));
        builtins.add(BuiltinTools.reasoning(b.store()));
        SessionTools.all(b.store()).forEach(t -> builtins.add(DynamicTool.deferred(t)));
        builtins.add(DynamicTool.deferred(new HotSwapTool(agents)));
        if (b.workspace() != null) {
            builtins.addAll(BuiltinTools.files(b.workspace()));
            builtins.add(BuiltinTools.memoryDump(b.store(), b.workspace()));
        }
        if (b.shell() != null) {
            if (b.workspace() == null) {
                throw new IllegalArgumentException("shell_exec runs in a workspace: set one with Builder.workspace(...) too");
            }
            builtins.add(b.shellSessions() == null ? BuiltinTools.shell(b.workspace(), b.shell())
                    : BuiltinTools.shell(b.workspace(), b.shell(), b.shellSessions()));
        }
        if (b.vault() != null) {
            if (b.workspace() == null) {
                throw new IllegalArgumentException("vault_copyto copies into a workspace: set one with Builder.workspace(...) too");
            }
            builtins.addAll(BuiltinTools.vault(b.vault(), b.workspace(), b.store()));
        }
        if (!b.channels().isEmpty()) {
            builtins.add(BuiltinTools.message(b.channels()));
        }
        if (b.webFetcher() != null) {
            builtins.addAll(BuiltinTools.web(b.webFetcher(), b.searchProviders()));
        }
        if (b.code() != null) {
            builtins.add(BuiltinTools.runCode(b.code()));
            builtins.add(CodeMode.forCatalog(b.code(), agents, turns));
        }
        for (DynamicTool t : builtins) {
            catalog.put(t.name(), t);
        }
        for (DynamicTool t : b.tools()) {
            if (catalog.putIfAbsent(t.name(), t) != null) {
                throw new IllegalArgumentException("tool '" + t.name() + "' is already provided by the runtime; "
                        + "give yours another name");
            }
        }
    }

    /** The agent's file limits (its own, else Letta's for its context window); Letta's defaults for an agent not found. */
    static FileLimits fileLimits(AgentRegistry agents, Scope scope) {
        try {
            return agents.agent(scope.userId(), scope.agentId()).definition().fileLimits();
        } catch (AgentNotFoundException gone) {
            return FileLimits.forContextWindow(0);
        }
    }
}
