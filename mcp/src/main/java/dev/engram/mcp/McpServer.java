package dev.engram.mcp;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolException;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientSseClientTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import tools.jackson.databind.json.JsonMapper;

/**
 * One MCP server, reached over stdio, SSE or Streamable HTTP, that never hangs its caller: it connects at its first use
 * (or {@link #listTools}) within the connect timeout, each call is abandoned after the call timeout, and a circuit per
 * server opens after consecutive failures, refusing calls at once until a cool-down has passed and a trial call
 * succeeds. A server that crashes or stalls is closed (its process ended) and reconnected on the next allowed call;
 * its {@link #status} says what happened, and each failure is logged. Failures reach a caller as a
 * {@link ToolException} whose message tells the model what happened and what to do.
 *
 * <pre>{@code
 * try (McpServer fs = McpServer.of(McpServerSpec.stdio("fs", List.of("mcp-fs", "/tmp"), Map.of()), McpServerOptions.defaults())) {
 *     fs.listTools();
 *     fs.tools().forEach(runtimeBuilder::tool);   // fs_read_file, ...
 * }
 * }</pre>
 */
public final class McpServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(McpServer.class.getName());
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final JacksonMcpJsonMapper JSON = new JacksonMcpJsonMapper(JsonMapper.builder().build());

    private final McpServerSpec spec;
    private final McpServerOptions options;
    private final Optional<McpElicitation> elicitation;
    private final CircuitBreaker breaker;
    private final ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();
    private final Object connection = new Object();
    private McpSyncClient client;
    private volatile List<McpSchema.Tool> known = List.of();
    private volatile boolean connected;
    private volatile String lastError;
    private volatile boolean closed;

    private McpServer(McpServerSpec spec, McpServerOptions options, Optional<McpElicitation> elicitation) {
        this.spec = spec;
        this.options = options;
        this.elicitation = elicitation;
        this.breaker = new CircuitBreaker(options.failuresToOpen(), options.coolDown(), options.clock());
    }

    /** A server of that spec, not connected yet. */
    public static McpServer of(McpServerSpec spec, McpServerOptions options) {
        return new McpServer(Objects.requireNonNull(spec, "spec must not be null"),
                Objects.requireNonNull(options, "options must not be null"), Optional.empty());
    }

    /** A server of that spec, not connected yet, whose forms (elicitation requests) {@code elicitation} answers. */
    public static McpServer of(McpServerSpec spec, McpServerOptions options, McpElicitation elicitation) {
        return new McpServer(Objects.requireNonNull(spec, "spec must not be null"),
                Objects.requireNonNull(options, "options must not be null"),
                Optional.of(Objects.requireNonNull(elicitation, "elicitation must not be null")));
    }

    public McpServerSpec spec() {
        return spec;
    }

    public McpServerOptions options() {
        return options;
    }

    /**
     * Connects if needed and lists the server's tools (every page), which become {@link #knownTools}; a server that
     * does not declare the tools capability has none.
     *
     * @throws McpServerException if the server cannot be reached, does not answer in time or its circuit is open
     */
    public List<McpSchema.Tool> listTools() {
        try {
            List<McpSchema.Tool> tools = guarded("list its tools", c -> {
                List<McpSchema.Tool> all = new ArrayList<>();
                McpSchema.ServerCapabilities capabilities = c.getServerCapabilities();
                if (capabilities == null || capabilities.tools() == null) {
                    return all; // a server that declares no tools has none (and may refuse tools/list)
                }
                String cursor = null;
                do {
                    McpSchema.ListToolsResult page = cursor == null ? c.listTools() : c.listTools(cursor);
                    all.addAll(page.tools());
                    cursor = page.nextCursor();
                } while (cursor != null && !cursor.isEmpty());
                return all;
            });
            known = List.copyOf(tools);
            return known;
        } catch (ToolException e) {
            throw new McpServerException(e.getMessage(), e);
        }
    }

    /** The tools the last {@link #listTools} (or {@link #remember}) found; empty before either. */
    public List<McpSchema.Tool> knownTools() {
        return known;
    }

    /** Takes {@code tools} as the server's tools without asking it (a list kept from an earlier connection). */
    public void remember(List<McpSchema.Tool> tools) {
        known = List.copyOf(tools);
    }

    /** The {@link #knownTools} as JSON (an array of MCP tool objects), to keep between runs ({@link #rememberJson}). */
    public String knownToolsJson() {
        try {
            return JSON.writeValueAsString(known);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Takes the tools of {@code json} (from {@link #knownToolsJson}) as the server's tools without asking it.
     *
     * @throws IllegalArgumentException if it is not such JSON
     */
    public void rememberJson(String json) {
        try {
            known = List.copyOf(JSON.readValue(json, new TypeRef<List<McpSchema.Tool>>() {
            }));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("Not a JSON array of MCP tools: " + sentence(e), e);
        }
    }

    /**
     * The {@link #knownTools} as Engram tools named {@code <prefix>_<tool>} (see {@link McpServerSpec#name()}),
     * each calling {@link #call}. Their safety tier follows the tool's hints, believing {@code readOnlyHint} only for a
     * trusted server.
     */
    public List<DynamicTool> tools(String prefix) {
        return known.stream().<DynamicTool>map(t -> new McpTool(prefix, this, t, options.trusted())).toList();
    }

    /** {@link #tools(String)} prefixed with the server's name. */
    public List<DynamicTool> tools() {
        return tools(spec.name());
    }

    /** The name an MCP tool of this server has among Engram's tools, prefixed with the server's name. */
    public String toolName(String mcpToolName) {
        return McpTool.name(spec.name(), mcpToolName);
    }

    /**
     * Calls the server's tool {@code tool} and returns its text.
     *
     * @throws ToolException if the tool reports an error, or the server is unreachable, crashes, does not answer within
     *                       the call timeout, or its circuit is open; the message says which, for the model
     */
    public String call(String tool, Map<String, Object> arguments) {
        McpSchema.CallToolResult result = guarded("run '" + tool + "'",
                c -> c.callTool(new McpSchema.CallToolRequest(tool, arguments)));
        String text = result.content() == null ? "" : result.content().stream()
                .map(c -> c instanceof McpSchema.TextContent t ? t.text() : "[" + c.type() + " content]")
                .collect(Collectors.joining("\n"));
        if (text.isEmpty() && result.structuredContent() != null) {
            text = MAPPER.writeValueAsString(result.structuredContent());
        }
        if (Boolean.TRUE.equals(result.isError())) {
            throw new ToolException(text.isBlank() ? "The MCP tool '" + tool + "' of server '" + spec.name() + "' failed."
                    : text);
        }
        return text;
    }

    /** How the server is doing. */
    public McpServerStatus status() {
        McpServerStatus.State state;
        if (breaker.isOpen()) {
            state = McpServerStatus.State.CIRCUIT_OPEN;
        } else if (breaker.failures() > 0) {
            state = McpServerStatus.State.FAILING;
        } else {
            state = connected ? McpServerStatus.State.CONNECTED : McpServerStatus.State.NOT_CONNECTED;
        }
        return new McpServerStatus(state, breaker.failures(), Optional.ofNullable(breaker.failures() > 0 ? lastError : null),
                state == McpServerStatus.State.CIRCUIT_OPEN ? breaker.openUntil() : Optional.empty());
    }

    /** Ends the session (and a stdio server's process); calls made afterwards fail. */
    @Override
    public void close() {
        closed = true;
        disconnect();
        calls.shutdownNow();
    }

    /**
     * Connects if needed (within the connect timeout), then runs {@code work} on the client (within the call timeout),
     * inside the circuit: a refusal, a timeout or a failure of the connection is recorded, and becomes a
     * {@link ToolException} that says what happened.
     */
    private <T> T guarded(String what, ClientWork<T> work) {
        if (closed) {
            throw new ToolException("The MCP server '" + spec.name() + "' has been removed or shut down; it cannot "
                    + what + ".");
        }
        if (!breaker.tryAcquire()) {
            throw new ToolException("The MCP server '" + spec.name() + "' is unavailable: it failed "
                    + breaker.failures() + " times in a row (last: " + lastError + "), so calls to it are refused until "
                    + breaker.openUntil().map(Object::toString).orElse("it recovers") + ". Do not retry it now; carry on "
                    + "without it or tell the user.");
        }
        McpSyncClient c = timed(what, "connect", options.connectTimeout(), this::connected);
        T value = timed(what, "answer", options.callTimeout(), () -> work.on(c));
        breaker.success();
        lastError = null;
        return value;
    }

    /** What to do with a connected client. */
    @FunctionalInterface
    private interface ClientWork<T> {
        T on(McpSyncClient client) throws Exception;
    }

    private <T> T timed(String what, String verb, Duration timeout, Callable<T> work) {
        Future<T> future = calls.submit(work);
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw failed(what, "it did not " + verb + " within " + seconds(timeout) + " (it may be stalled); the call was "
                    + "abandoned", null);
        } catch (ExecutionException e) {
            throw failed(what, sentence(e.getCause()), e.getCause());
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new ToolException("The call to MCP server '" + spec.name() + "' was interrupted.");
        }
    }

    private ToolException failed(String what, String why, Throwable cause) {
        lastError = why;
        boolean opened = breaker.failure();
        disconnect();
        LOG.log(Level.WARNING, "MCP server ''{0}'' ({1}) failed to {2}: {3}{4}", spec.name(), spec.describe(), what, why,
                opened ? "; its circuit is open until " + breaker.openUntil().map(Object::toString).orElse("") : "");
        return new ToolException("The MCP server '" + spec.name() + "' failed to " + what + ": " + why
                + (why.endsWith(".") ? "" : ".") + " Carry on without it or try once more later.", cause);
    }

    /** The live client, connecting (start, initialise) when there is none. */
    private McpSyncClient connected() throws UnknownHostException {
        synchronized (connection) {
            if (client == null) {
                checkAddresses();
                McpClient.SyncSpec clientSpec = McpClient.sync(transport())
                        .requestTimeout(options.connectTimeout().plus(options.callTimeout()).plusSeconds(1))
                        .initializationTimeout(options.connectTimeout().plusSeconds(1))
                        .clientInfo(new McpSchema.Implementation("engram", "0.1.0"));
                elicitation.ifPresent(e -> clientSpec.capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                        .elicitation(e::answer));
                McpSyncClient c = clientSpec.build();
                try {
                    c.initialize();
                } catch (RuntimeException e) {
                    closeQuietly(c);
                    throw e;
                }
                client = c;
                connected = true;
                LOG.log(Level.INFO, "Connected to MCP server ''{0}'' ({1})", spec.name(), spec.describe());
            }
            return client;
        }
    }

    /** Refuses an HTTP server whose host resolves to an address the options do not allow. */
    private void checkAddresses() throws UnknownHostException {
        if (spec.transport() == McpTransport.STDIO) {
            return;
        }
        for (InetAddress a : InetAddress.getAllByName(spec.host())) {
            if (!options.addressAllowed().test(a)) {
                throw new IllegalStateException("its host " + spec.host() + " resolves to " + a.getHostAddress()
                        + ", an address this server may not reach (only public addresses are allowed)");
            }
        }
    }

    private McpClientTransport transport() {
        JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(JsonMapper.builder().build());
        if (spec.transport() == McpTransport.STDIO) {
            ServerParameters params = ServerParameters.builder(spec.command().getFirst())
                    .args(spec.command().subList(1, spec.command().size())).env(spec.environment()).build();
            return new StdioClientTransport(params, mapper);
        }
        URI uri = URI.create(spec.url());
        if (spec.transport() == McpTransport.STREAMABLE_HTTP) {
            return ResumableHttpClientTransport.of(uri, spec.headers(), options.connectTimeout(), mapper);
        }
        String base = uri.getScheme() + "://" + uri.getRawAuthority();
        String endpoint = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        HttpRequest.Builder request = HttpRequest.newBuilder();
        spec.headers().forEach(request::header);
        return HttpClientSseClientTransport.builder(base).sseEndpoint(endpoint).requestBuilder(request)
                .connectTimeout(options.connectTimeout()).jsonMapper(mapper).build();
    }

    /** Drops the connection; closing runs on its own thread, as a stalled server may not let it finish. */
    private void disconnect() {
        McpSyncClient c;
        synchronized (connection) {
            c = client;
            client = null;
            connected = false;
        }
        if (c != null) {
            Thread.ofVirtual().name("mcp-close-" + spec.name()).start(() -> closeQuietly(c));
        }
    }

    private static void closeQuietly(McpSyncClient c) {
        try {
            c.close();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "Closing an MCP client failed", e);
        }
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** The first non-blank message in the cause chain, as one line. */
    static String sentence(Throwable t) {
        Throwable e = t;
        while ((e.getMessage() == null || e.getMessage().isBlank()) && e.getCause() != null) {
            e = e.getCause();
        }
        String message = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
        return message.strip().replaceAll("\\s*\\n\\s*", " ");
    }
}
