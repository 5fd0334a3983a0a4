package dev.engram.cli;

import dev.engram.agents.AgentRuntime;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolFormat;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.memory.Scope;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram tools list|schema|call}. */
@Command(name = "tools", mixinStandardHelpOptions = true, description = "The built-in tools: list, schemas, and direct calls.",
        subcommands = {ToolsCommands.ListTools.class, ToolsCommands.Schema.class, ToolsCommands.Call.class})
final class ToolsCommands extends GroupCommand {

    /** Enables the tools of the options on a runtime. */
    static void apply(AgentRuntime.Builder b, ToolOptions tools, WorkbenchOptions workbench,
            Map<String, String> environment) {
        tools.apply(b, environment);
        workbench.apply(b, tools.workspace);
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = {"The tools an agent can be given.",
            "Memory tools always; the workspace, shell and web tools with --workspace, --shell and --web; the vault "
                    + "tools with --vault, message with --webhook."})
    static final class ListTools extends BaseCommand {
        @Mixin
        ToolOptions tools;

        @Mixin
        WorkbenchOptions workbench;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                List<DynamicTool> list = engine.runtime(b -> apply(b, tools, workbench, root().environment())).toolRegistry().list();
                // Each column as wide as its longest entry, so that a long name never pushes a row out of line.
                int nameWidth = list.stream().mapToInt(t -> t.name().length()).max().orElse(0);
                int tierWidth = list.stream().mapToInt(t -> tier(t).length()).max().orElse(0);
                String row = "%-" + Math.max(1, nameWidth) + "s  %-" + Math.max(1, tierWidth) + "s  %s%n";
                for (DynamicTool t : list) {
                    String d = t.description();
                    int end = d.indexOf(". ");
                    out().printf(Locale.ROOT, row, t.name(), tier(t), end > 0 ? d.substring(0, end + 1) : d);
                }
            }
            return 0;
        }

        private static String tier(DynamicTool t) {
            return t.safetyTier().name().toLowerCase(Locale.ROOT);
        }
    }

    @Command(name = "schema", mixinStandardHelpOptions = true, description = "The tool definitions as JSON, in a provider's format.")
    static final class Schema extends BaseCommand {
        @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "openai",
                description = "openai, anthropic, gemini or mcp; default ${DEFAULT-VALUE}.")
        ToolFormat format;

        @Mixin
        ToolOptions tools;

        @Mixin
        WorkbenchOptions workbench;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                out().println(engine.runtime(b -> apply(b, tools, workbench, root().environment())).toolRegistry().toolsJson(format)
                        .toPrettyString());
            }
            return 0;
        }
    }

    @Command(name = "call", mixinStandardHelpOptions = true,
            description = {"Run one call through the full pipeline (lookup, validation, approval, timeout, truncation) "
                    + "and print the ToolResult as JSON.", "You are the one calling, so approval is granted; writes to "
                    + "partner and human blocks also need --consent.",
                    "The call acts on the memory of --agent, which must exist: create it once with 'engram agent create "
                            + "NAME --model SPEC' (the model is never called here)."})
    static final class Call extends BaseCommand {
        @Parameters(paramLabel = "NAME")
        String name;

        @Option(names = "--args", paramLabel = "JSON", defaultValue = "{}", description = "The arguments; default ${DEFAULT-VALUE}.")
        String args;

        @Option(names = "--consent", description = "You consent to this call's writes to partner and human blocks, "
                + "which are refused without it.")
        boolean consent;

        @Mixin
        ScopeOptions scope;

        @Mixin
        ToolOptions tools;

        @Mixin
        WorkbenchOptions workbench;

        @Override
        int run() {
            try (Engine engine = root().engine()) {
                Scope s = scope(engine, scope.user, scope.agent);
                ToolRegistry registry = engine.runtime(b -> {
                    apply(b, tools, workbench, root().environment());
                    if (consent) {
                        b.permissionBroker(dev.engram.tools.PermissionBroker.allowAll());
                    }
                }).toolRegistry();
                ToolResult r = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build().execute(
                        new ToolCall("cli-1", name, args),
                        ToolContext.builder().userId(s.userId()).agentId(s.agentId()).sessionId("cli").build());
                Map<String, Object> json = new LinkedHashMap<>();
                json.put("call_id", r.callId());
                json.put("tool_name", r.toolName());
                json.put("status", r.status().name().toLowerCase(Locale.ROOT));
                json.put("content", r.content());
                json.put("duration_ms", r.duration().toMillis());
                json.put("truncated", r.truncated());
                json.put("original_bytes", r.originalBytes());
                out().println(Json.pretty(json));
                return r.isError() ? 1 : 0;
            }
        }
    }
}
