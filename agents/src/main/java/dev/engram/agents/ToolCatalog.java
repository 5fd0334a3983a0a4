package dev.engram.agents;

import dev.engram.framework.DynamicTool;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.tools.BuiltinTools;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.PermissionBroker;
import dev.engram.tools.SearchProvider;
import dev.engram.tools.ShellOptions;
import dev.engram.tools.WebFetcher;
import dev.engram.tools.Workspace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The tools a runtime can give its agents: the built-ins (memory, Letta's memory tools, notes,
 * messaging, schedules, subagents), the workspace, shell and web tools when the builder enabled them, and the
 * host's own tools, which may not take a built-in's name.
 */
final class ToolCatalog {
    private ToolCatalog() {
    }

    /** What the catalog is made of, from the runtime's builder. */
    record Sources(MemoryStore store, MemorySearch search, PermissionBroker broker, Duration agentReplyTimeout,
            int maxAgentDepth, Workspace workspace, ShellOptions shell, WebFetcher webFetcher, List<SearchProvider> searchProviders,
            List<DynamicTool> tools, dev.engram.memory.ScheduleLimits scheduleLimits, CodeRunner code) {
    }

    static void fill(Map<String, DynamicTool> catalog, Sources b, AgentRegistry agents, ActiveTurns turns,
            Consumer<AgentEvent> emit) {
        List<DynamicTool> builtins = new ArrayList<>();
        builtins.add(BuiltinTools.sendMessage(new AgentRouter(agents, turns, emit, b.maxAgentDepth()))
                .withTimeout(b.agentReplyTimeout().multipliedBy(2)));
        builtins.addAll(BuiltinTools.memory(b.store(), b.search(), b.broker()));
        builtins.addAll(BuiltinTools.letta(b.store(), b.search(), b.broker(), BuiltinTools.MemoryToolOptions.defaults()));
        builtins.addAll(BuiltinTools.notes(b.store(), b.search()));
        builtins.add(BuiltinTools.schedule(b.store(), b.scheduleLimits()));
        builtins.add(DynamicTool.from(new SubagentTool(agents, turns, b.agentReplyTimeout(), b.maxAgentDepth())));
        if (b.workspace() != null) {
            builtins.addAll(BuiltinTools.files(b.workspace()));
        }
        if (b.shell() != null) {
            if (b.workspace() == null) {
                throw new IllegalArgumentException("shell_exec runs in a workspace: set one with Builder.workspace(...) too");
            }
            builtins.add(BuiltinTools.shell(b.workspace(), b.shell()));
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
}
