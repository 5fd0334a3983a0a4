package dev.engram.cli;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolFormat;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.memory.Scope;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tools.jackson.databind.JsonNode;

/**
 * {@code engram mcp}: an MCP server on standard input and output (the official MCP Java SDK) that
 * exposes one scope's memory tools. Tool calls run through Engram's pipeline with the scope as
 * context; the MCP host is the one asking its user, so the pipeline does not ask again. A write to a partner or
 * human block asks the client's user for consent through MCP elicitation ({@link McpConsent}); a client without
 * elicitation gets the write refused with that reason. Logs go to standard error, never to the protocol stream. Ends
 * when the client closes standard input.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
        description = {"Serve a user's memory tools over MCP on stdio: search, notes, archival memory and blocks.",
                "Without --agent only the note tools are served."})
final class McpCommand extends BaseCommand {
    /** With an agent: every memory tool. */
    static final List<String> AGENT_TOOLS = List.of("search", "memory_search", "memory_save", "memory_update",
            "memory_delete", "recall", "block");
    /** Without one: the user's notes. */
    static final List<String> USER_TOOLS = List.of("memory_search", "memory_save", "memory_update", "memory_delete");

    @Option(names = "--user", paramLabel = "ID", required = true, description = "Whose memory to serve.")
    String user;

    @Option(names = "--agent", paramLabel = "NAME", description = "The agent whose blocks and archival memory to serve; it "
            + "must exist: create it once with 'engram agent create NAME --model SPEC' (its model is never called here).")
    String agent;

    /** Streams for tests; the process's otherwise. */
    static InputStream testIn;
    static OutputStream testOut;

    @Override
    int run() throws InterruptedException {
        try (Engine engine = root().engine()) {
            Scope scope = agent != null ? scope(engine, user, agent) : Scope.of(user, "mcp");
            McpConsent consent = new McpConsent();
            ToolRegistry all = engine.runtime(b -> b.permissionBroker(consent)).toolRegistry();
            ToolRegistry served = ToolRegistry.create();
            for (String name : agent != null ? AGENT_TOOLS : USER_TOOLS) {
                all.find(name).ifPresent(served::register);
            }
            ToolExecutor executor = ToolExecutor.builder(served).approvalMode(ApprovalMode.YOLO).build();
            CountDownLatch closed = new CountDownLatch(1);
            // The end of the client's input is passed on only once every call read from it has been answered.
            InFlightRequests calls = new InFlightRequests(Duration.ofMinutes(6));
            OutputStream raw = testOut != null ? testOut : System.out;
            OutputStream out = calls.output(raw);
            JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(McpConsent.mapper());
            // Bad lines are answered here, never reach the SDK (whose reader stops at the first), and are not counted:
            // their answers go around the counting stream, under the lock the SDK writes with.
            InputStream in = new McpLineGuard(testIn != null ? testIn : System.in, raw, out, mapper, calls::requestRead, () -> {
                calls.awaitAnswers();
                closed.countDown();
            });
            StdioServerTransportProvider transport = new StdioServerTransportProvider(mapper, in, out);
            List<McpServerFeatures.SyncToolSpecification> tools = new ArrayList<>();
            for (DynamicTool tool : served.list()) {
                tools.add(spec(tool, executor, scope, mapper, consent));
            }
            McpSyncServer server = McpServer.sync(transport)
                    .serverInfo("engram", new EngramCli.Version().getVersion()[0].split(" ")[1])
                    .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                    .instructions("Engram memory of user '" + user + "'" + (agent != null ? " and agent '" + agent + "'" : "")
                            + ": search it, and save what should be remembered.")
                    .tools(tools)
                    .build();
            err().println("engram: serving " + served.names() + " for " + scope + " over MCP on stdio.");
            err().flush();
            closed.await();
            server.closeGracefully();
        }
        return 0;
    }

    @SuppressWarnings("unchecked")
    static McpServerFeatures.SyncToolSpecification spec(DynamicTool tool, ToolExecutor executor, Scope scope,
            JacksonMcpJsonMapper mapper, McpConsent consent) {
        JsonNode mcp = ToolDefinition.of(tool).toJson(ToolFormat.MCP);
        Map<String, Object> schema = Json.MAPPER.convertValue(mcp.get("inputSchema"), Map.class);
        JsonNode hints = mcp.path("annotations");
        McpSchema.Tool definition = McpSchema.Tool.builder().name(tool.name()).description(tool.description())
                .inputSchema(schema)
                .annotations(new McpSchema.ToolAnnotations(null, hints.path("readOnlyHint").asBoolean(false),
                        hints.path("destructiveHint").asBoolean(false), null, false, null))
                .build();
        return McpServerFeatures.SyncToolSpecification.builder().tool(definition).callHandler((exchange, request) -> {
            consent.calledBy(exchange);
            String args = Json.MAPPER.writeValueAsString(request.arguments() == null ? Map.of() : request.arguments());
            ToolResult r = executor.execute(new ToolCall("mcp-" + UUID.randomUUID(), tool.name(), args),
                    ToolContext.builder().userId(scope.userId()).agentId(scope.agentId()).sessionId("mcp").build());
            return McpSchema.CallToolResult.builder().addTextContent(r.content()).isError(r.isError()).build();
        }).build();
    }
}
