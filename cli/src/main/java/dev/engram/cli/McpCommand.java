package dev.engram.cli;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentNotFoundException;
import dev.engram.agents.AgentType;
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
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tools.jackson.databind.JsonNode;

/**
 * {@code engram mcp}: an MCP server (the official MCP Java SDK) that exposes one scope's memory tools, on standard input
 * and output for one user, or with {@code --http} over Streamable HTTP at {@code /mcp} for every user holding an API
 * key ({@link McpHttpServer}). Tool calls run through Engram's pipeline with the scope as context; the MCP host is the
 * one asking its user, so the pipeline does not ask again. A write to a partner or human block asks the client's user
 * for consent through MCP elicitation ({@link McpConsent}); a client without elicitation gets the write refused with
 * that reason. With {@code --agent} the agent is created, for each user, when it does not exist yet (desktop clients
 * cannot run a setup step). Logs go to standard error, never to the protocol stream. Over stdio it ends when the client
 * closes standard input; over HTTP at a stop signal.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
        description = {"Serve a user's memory tools over MCP: search, notes, archival memory and blocks.",
                "On stdio for --user; with --http over Streamable HTTP at /mcp, where each API key acts as its user.",
                "Without --agent only the note tools are served."})
final class McpCommand extends BaseCommand {
    /** With an agent: every memory tool. */
    static final List<String> AGENT_TOOLS = List.of("search", "memory_search", "memory_save", "memory_update",
            "memory_delete", "recall", "block");
    /** Without one: the user's notes. */
    static final List<String> USER_TOOLS = List.of("memory_search", "memory_save", "memory_update", "memory_delete");
    /** The model recorded for an agent created here when neither --model nor ENGRAM_MODEL names one. */
    static final String DEFAULT_MODEL = "openai:gpt-4o-mini";

    @Option(names = "--user", paramLabel = "ID", description = "Whose memory to serve (stdio; over HTTP each key is its user).")
    String user;

    @Option(names = "--agent", paramLabel = "NAME", description = "The agent whose blocks and archival memory to serve; "
            + "created (with default blocks) when the user has no agent of that name.")
    String agent;

    @Option(names = "--model", paramLabel = "SPEC", description = "The model recorded for an agent created here (MCP "
            + "never calls it); default $ENGRAM_MODEL, else " + DEFAULT_MODEL + ".")
    String model;

    @Option(names = "--http", description = "Serve over Streamable HTTP at /mcp instead of stdio; requests need "
            + "'Authorization: Bearer KEY' (engram keys create --user ID).")
    boolean http;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "With --http: the address to listen on "
            + "(default ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--port", defaultValue = "8284", description = "With --http: the port (default ${DEFAULT-VALUE}; 0 picks one).")
    int port;

    @Option(names = "--allowed-origin", paramLabel = "ORIGIN", description = "With --http: also accept requests from "
            + "this browser origin (repeatable; e.g. https://app.example.com, http://host:*); loopback origins always are.")
    List<String> allowedOrigins = new ArrayList<>();

    @Option(names = "--allowed-host", paramLabel = "HOST", description = "With --http: also accept this Host header "
            + "(repeatable; e.g. mcp.example.com, when a proxy forwards to it); loopback names always are.")
    List<String> allowedHosts = new ArrayList<>();

    /** Streams for tests; the process's otherwise. */
    static InputStream testIn;
    static OutputStream testOut;

    @Override
    int run() throws InterruptedException {
        if (http && user != null) {
            throw usage("Over HTTP the user is the API key's: drop --user (create a key with 'engram keys create --user "
                    + user + "')");
        }
        if (!http && user == null) {
            throw usage("Missing --user ID: whose memory to serve on stdio (or serve every key's user with --http)");
        }
        if (!http && (!allowedOrigins.isEmpty() || !allowedHosts.isEmpty())) {
            throw usage("--allowed-origin and --allowed-host apply to --http only");
        }
        try (Engine engine = root().engine()) {
            String spec = model != null ? model : root().environment().getOrDefault("ENGRAM_MODEL", DEFAULT_MODEL);
            return http ? serveHttp(engine, spec) : serveStdio(engine, spec);
        }
    }

    /** The tools served, from the runtime's registry, run by an executor that does not ask again. */
    private ToolExecutor executor(Engine engine, McpConsent consent) {
        ToolRegistry all = engine.runtime(b -> b.permissionBroker(consent)).toolRegistry();
        ToolRegistry served = ToolRegistry.create();
        for (String name : agent != null ? AGENT_TOOLS : USER_TOOLS) {
            all.find(name).ifPresent(served::register);
        }
        return ToolExecutor.builder(served).approvalMode(ApprovalMode.YOLO).build();
    }

    private McpSchema.ServerCapabilities capabilities() {
        return McpSchema.ServerCapabilities.builder().tools(false).build();
    }

    private String version() {
        return new EngramCli.Version().getVersion()[0].split(" ")[1];
    }

    private int serveStdio(Engine engine, String spec) throws InterruptedException {
        Scope scope = agent != null ? agentScope(engine, user, agent, spec) : Scope.of(user, "mcp");
        McpConsent consent = new McpConsent();
        ToolExecutor executor = executor(engine, consent);
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
        for (DynamicTool tool : executor.registry().list()) {
            tools.add(spec(tool, executor, exchange -> scope, mapper, consent));
        }
        McpSyncServer server = McpServer.sync(transport)
                .serverInfo("engram", version())
                .capabilities(capabilities())
                .instructions("Engram memory of user '" + user + "'" + (agent != null ? " and agent '" + agent + "'" : "")
                        + ": search it, and save what should be remembered.")
                .tools(tools)
                .build();
        err().println("engram: serving " + executor.registry().names() + " for " + scope + " over MCP on stdio.");
        err().flush();
        closed.await();
        server.closeGracefully();
        return 0;
    }

    private int serveHttp(Engine engine, String spec) throws InterruptedException {
        McpConsent consent = new McpConsent();
        ToolExecutor executor = executor(engine, consent);
        JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(McpConsent.mapper());
        Map<String, Scope> scopes = new ConcurrentHashMap<>();
        Function<McpSyncServerExchange, Scope> scopeOf = exchange -> scopes.computeIfAbsent(McpHttpServer.user(exchange),
                u -> agent != null ? agentScope(engine, u, agent, spec) : Scope.of(u, "mcp"));
        McpHttpServer http;
        try {
            http = McpHttpServer.create(host, port, engine.store().keys(), mapper, allowedHosts, allowedOrigins);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        List<McpServerFeatures.SyncToolSpecification> tools = new ArrayList<>();
        for (DynamicTool tool : executor.registry().list()) {
            tools.add(spec(tool, executor, scopeOf, mapper, consent));
        }
        McpSyncServer server = McpServer.sync(http.transport())
                .serverInfo("engram", version())
                .capabilities(capabilities())
                .instructions("Engram memory of the user whose API key this is" + (agent != null ? ", and of their agent '"
                        + agent + "'" : "") + ": search it, and save what should be remembered.")
                .tools(tools)
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        StopSignals signals = StopSignals.install(stopped::countDown);
        try (http) {
            http.start();
            err().println("engram: serving " + executor.registry().names() + " over MCP (Streamable HTTP) at http://"
                    + (host.contains(":") ? "[" + host + "]" : host) + ":" + http.port() + McpHttpServer.ENDPOINT
                    + "; each API key acts as its user.");
            err().flush();
            stopped.await();
        } finally {
            server.closeGracefully();
        }
        return signals.exitStatus();
    }

    /** The scope of the user's agent named {@code name}, created with default blocks when the user has none of that name. */
    static Scope agentScope(Engine engine, String user, String name, String modelSpec) {
        try {
            return scope(engine, user, name);
        } catch (AgentNotFoundException missing) {
            AgentDefinition definition = AgentDefinition.builder(user).name(name).model(modelSpec)
                    .agentType(AgentType.MEMGPT_V2_AGENT)
                    .block("human", "What I know about the user", "").block("persona", "Who I am", "I am a helpful assistant.")
                    .build();
            Agent created = engine.runtime().create(definition);
            return Scope.of(user, created.id());
        }
    }

    @SuppressWarnings("unchecked")
    static McpServerFeatures.SyncToolSpecification spec(DynamicTool tool, ToolExecutor executor,
            Function<McpSyncServerExchange, Scope> scopes, JacksonMcpJsonMapper mapper, McpConsent consent) {
        JsonNode mcp = ToolDefinition.of(tool).toJson(ToolFormat.MCP);
        Map<String, Object> schema = Json.MAPPER.convertValue(mcp.get("inputSchema"), Map.class);
        JsonNode hints = mcp.path("annotations");
        McpSchema.Tool definition = McpSchema.Tool.builder().name(tool.name()).description(tool.description())
                .inputSchema(schema)
                .annotations(new McpSchema.ToolAnnotations(null, hints.path("readOnlyHint").asBoolean(false),
                        hints.path("destructiveHint").asBoolean(false), null, false, null))
                .build();
        return McpServerFeatures.SyncToolSpecification.builder().tool(definition).callHandler((exchange, request) -> {
            Scope scope = scopes.apply(exchange);
            String callId = "mcp-" + UUID.randomUUID();
            consent.calledBy(callId, exchange);
            try {
                String args = Json.MAPPER.writeValueAsString(request.arguments() == null ? Map.of() : request.arguments());
                ToolResult r = executor.execute(new ToolCall(callId, tool.name(), args),
                        ToolContext.builder().userId(scope.userId()).agentId(scope.agentId()).sessionId("mcp").build());
                return McpSchema.CallToolResult.builder().addTextContent(r.content()).isError(r.isError()).build();
            } finally {
                consent.done(callId);
            }
        }).build();
    }
}
