package dev.engram.cli;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentRuntime;
import dev.engram.agents.AgentType;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolResult;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.mcp.McpElicitation;
import dev.engram.mcp.McpServer;
import dev.engram.mcp.McpServerException;
import dev.engram.mcp.McpServerOptions;
import dev.engram.mcp.McpServerSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code engram mcp-turn URL}: one turn of an agent on a scripted model, with the tools of the Streamable HTTP MCP
 * server at {@code URL}, through Engram's own MCP client ({@link McpServer}: timeouts, circuit, the tool pipeline). The
 * client answers the server's forms (elicitation) with their schema's defaults. The agent is made for the turn and
 * deleted after it. It is how the MCP conformance suite's
 * client scenarios drive Engram (the suite passes the URL last), and a way to try a server's tools without a model.
 */
@Command(name = "mcp-turn", mixinStandardHelpOptions = true,
        description = {"Run one scripted turn of an agent with the tools of the MCP server at URL (Streamable HTTP).",
                "The script is the scripted model's JSON (script:FILE); tool calls name the tools NAME_<tool>.",
                "Forms the server asks for (elicitation) are accepted with their schema's defaults."})
final class McpTurnCommand extends BaseCommand {
    /** The model name the scripted model is registered under. */
    static final String MODEL = "script:mcp-turn";

    @Parameters(paramLabel = "URL", description = "The MCP server's Streamable HTTP endpoint.")
    String url;

    @Option(names = "--script", paramLabel = "FILE", required = true, description = "The scripted model's turns (JSON).")
    Path script;

    @Option(names = "--message", paramLabel = "TEXT", defaultValue = "Use the tools.",
            description = "What the user says (default '${DEFAULT-VALUE}').")
    String message;

    @Option(names = "--name", paramLabel = "NAME", defaultValue = "remote",
            description = "The server's name, its tools' prefix (default ${DEFAULT-VALUE}).")
    String name;

    @Option(names = "--header", paramLabel = "NAME=VALUE", description = "An HTTP header sent to the server (repeatable).")
    List<String> headers = new ArrayList<>();

    @Option(names = "--user", paramLabel = "ID", defaultValue = "local",
            description = "The user of the turn's agent, made for the turn and deleted after it (default ${DEFAULT-VALUE}).")
    String user;

    @Option(names = "--approve", description = "Approve the server's tool calls: no one can be asked during the turn, "
            + "so without it a call that needs approval (an untrusted server's tools do) is refused.")
    boolean approve;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30s",
            description = "How long connecting and each call may take (default ${DEFAULT-VALUE}).")
    String timeout;

    @Override
    int run() {
        if (!Files.isRegularFile(script)) {
            throw usage("--script " + script + " is not a file");
        }
        Map<String, String> sent = new LinkedHashMap<>();
        for (String header : headers) {
            int eq = header.indexOf('=');
            if (eq <= 0) {
                throw usage("--header needs NAME=VALUE, got '" + header + "'");
            }
            sent.put(header.substring(0, eq).strip(), header.substring(eq + 1).strip());
        }
        Duration limit = DurationText.parse(timeout).filter(d -> !d.isZero())
                .orElseThrow(() -> usage("--timeout is a duration such as 30s or 2m, not '" + timeout + "'"));
        McpServerSpec spec;
        try {
            spec = McpServerSpec.streamableHttp(name, url, sent);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        ScriptedChatModel model = ScriptedChatModel.fromFile(script);
        McpServerOptions options = McpServerOptions.defaults().withConnectTimeout(limit).withCallTimeout(limit);
        try (Engine engine = root().engine();
                McpServer server = McpServer.of(spec, options, McpElicitation.schemaDefaults())) {
            try {
                server.listTools();
            } catch (McpServerException e) {
                err().println("engram: " + e.getMessage());
                return 1;
            }
            List<DynamicTool> tools = server.tools();
            AgentRuntime runtime = engine.runtime(b -> {
                b.model(MODEL, model);
                if (approve) {
                    b.approvalHandler(request -> CompletableFuture.completedFuture(ApprovalDecision.approve()));
                }
                tools.forEach(b::tool);
            });
            List<String> names = new ArrayList<>(List.of("send_message"));
            tools.forEach(t -> names.add(t.name()));
            // The turn's agent exists for the turn only: the server's tools are this run's, and so is what it remembers.
            Agent agent = runtime.create(AgentDefinition.builder(user).name("mcp-turn-" + UUID.randomUUID().toString()
                    .substring(0, 8)).model(MODEL).agentType(AgentType.MEMGPT_V2_AGENT).tools(names).build());
            out().println("Connected to '" + name + "' at " + url + ": " + String.join(", ", names.subList(1, names.size())));
            AgentResponse response;
            try {
                response = agent.send(message);
            } finally {
                runtime.delete(user, agent.id());
            }
            boolean failed = false;
            for (ToolResult r : response.toolResults()) {
                out().println((r.isError() ? "error " : "tool ") + r.toolName() + ": " + TranscriptPrinter.compact(r.content()));
                failed |= r.isError() && !r.toolName().equals("send_message");
            }
            response.reply().ifPresent(reply -> out().println("reply: " + reply));
            return failed || response.reply().isEmpty() ? 1 : 0;
        }
    }
}
