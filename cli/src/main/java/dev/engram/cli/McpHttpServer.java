package dev.engram.cli;

import dev.engram.memory.ApiKey;
import dev.engram.memory.KeyStore;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.DefaultServerTransportSecurityValidator;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.json.McpJsonMapper;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.ee11.servlet.FilterHolder;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * {@code engram mcp --http}: the MCP SDK's own Streamable HTTP server transport (a servlet, the only HTTP server
 * transport SDK 2.1 has) at {@code /mcp} in an embedded Jetty, the lightest servlet container (Helidon SE 4 runs no
 * servlets). In front of it one filter: every request needs {@code Authorization: Bearer KEY}, one of the server's API
 * keys, whose user it acts as (401 without, 403 for an admin key, which is no user); a session ({@code Mcp-Session-Id})
 * belongs to the user whose key opened it, and another user's key presenting it is answered 404 as an unknown session.
 * The SDK's own validator refuses a foreign {@code Host} (421) or {@code Origin} (403), the defence against DNS
 * rebinding: loopback names are allowed, and whatever {@code --allowed-host} and {@code --allowed-origin} add.
 */
final class McpHttpServer implements AutoCloseable {
    /** The path of the endpoint. */
    static final String ENDPOINT = "/mcp";
    /** The key of the transport context's entry naming the user a request acts as. */
    static final String USER = "engram.user";

    private static final String SESSION_HEADER = "Mcp-Session-Id";
    private static final List<String> LOOPBACK = List.of("localhost", "127.0.0.1", "[::1]");

    private final Server jetty;
    private final HttpServletStreamableServerTransportProvider transport;

    private McpHttpServer(Server jetty, HttpServletStreamableServerTransportProvider transport) {
        this.jetty = jetty;
        this.transport = transport;
    }

    /** The transport the MCP server is built on, before {@link #start}. */
    HttpServletStreamableServerTransportProvider transport() {
        return transport;
    }

    /**
     * A server on {@code host:port} (0 picks a free port) checking keys in {@code keys}. Requests may name loopback hosts
     * and origins on any port, and the extra {@code hosts} ({@code name} or {@code name:port}, {@code name:*} for any port)
     * and {@code origins} ({@code scheme://name[:port]}, {@code :*} for any port).
     */
    static McpHttpServer create(String host, int port, KeyStore keys, McpJsonMapper mapper, List<String> hosts,
            List<String> origins) {
        for (String origin : origins) {
            if (!origin.matches("https?://[^/\\s]+")) {
                throw new IllegalArgumentException("--allowed-origin must be an origin such as https://app.example.com or "
                        + "http://localhost:*, got '" + origin + "'");
            }
        }
        for (String h : hosts) {
            if (!h.matches("[^/\\s:]+(:(\\d+|\\*))?|\\[[0-9a-fA-F:]+](:(\\d+|\\*))?")) {
                throw new IllegalArgumentException("--allowed-host must be a host name with an optional port (example.com, "
                        + "example.com:8284, example.com:*), got '" + h + "'");
            }
        }
        DefaultServerTransportSecurityValidator.Builder security = DefaultServerTransportSecurityValidator.builder();
        for (String name : LOOPBACK) {
            security.allowedHost(name).allowedHost(name + ":*").allowedOrigin("http://" + name + ":*")
                    .allowedOrigin("https://" + name + ":*");
        }
        for (String h : hosts) {
            security.allowedHost(h);
            if (!h.contains(":") || h.startsWith("[")) {
                security.allowedHost(h + ":*");
            }
        }
        security.allowedOrigins(origins);
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider.builder()
                .jsonMapper(mapper).mcpEndpoint(ENDPOINT).keepAliveInterval(Duration.ofSeconds(30))
                .securityValidator(security.build())
                .contextExtractor(request -> McpTransportContext.create(Map.of(USER, request.getAttribute(USER))))
                .build();
        Server jetty = new Server(new InetSocketAddress(host, port));
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath("/");
        ServletHolder servlet = new ServletHolder(transport);
        servlet.setAsyncSupported(true);
        context.addServlet(servlet, ENDPOINT);
        FilterHolder auth = new FilterHolder(new KeyFilter(keys));
        auth.setAsyncSupported(true);
        context.addFilter(auth, "/*", EnumSet.of(DispatcherType.REQUEST));
        jetty.setHandler(context);
        return new McpHttpServer(jetty, transport);
    }

    /** Starts listening. */
    void start() {
        try {
            jetty.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot serve MCP over HTTP: " + e.getMessage()
                    + " (is the port taken? choose another with --port)", e);
        }
    }

    /** The port listened on. */
    int port() {
        return ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
    }

    /** The user whose key made the request an exchange belongs to. */
    static String user(McpSyncServerExchange exchange) {
        Object user = exchange.transportContext().get(USER);
        if (!(user instanceof String id)) {
            throw new IllegalStateException("an MCP request reached a tool without an authenticated user");
        }
        return id;
    }

    @Override
    public void close() {
        try {
            jetty.stop();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop the MCP HTTP server: " + e.getMessage(), e);
        }
    }

    /** Authenticates every request with an API key and keeps each session to the user who opened it. */
    private static final class KeyFilter implements Filter {
        private final KeyStore keys;
        private final Map<String, String> sessionUsers = new ConcurrentHashMap<>();

        KeyFilter(KeyStore keys) {
            this.keys = keys;
        }

        @Override
        public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
            HttpServletRequest request = (HttpServletRequest) req;
            HttpServletResponse response = (HttpServletResponse) res;
            String header = request.getHeader("Authorization");
            Optional<ApiKey> key = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
                    ? keys.verify(header.substring(7).strip()) : Optional.empty();
            if (key.isEmpty()) {
                response.setHeader("WWW-Authenticate", "Bearer realm=\"engram\"");
                refuse(response, 401, header == null
                        ? "An API key is needed: send 'Authorization: Bearer KEY' (create one with 'engram keys create --user ID')."
                        : "The API key is not valid (unknown, revoked or malformed); send 'Authorization: Bearer KEY'.");
                return;
            }
            Optional<String> user = key.get().userId();
            if (user.isEmpty()) {
                refuse(response, 403, "An admin key acts as no user, and MCP serves one user's memory: use a user's key.");
                return;
            }
            String session = request.getHeader(SESSION_HEADER);
            if (session != null) {
                String owner = sessionUsers.get(session);
                if (owner != null && !owner.equals(user.get())) {
                    refuse(response, 404, "There is no session '" + session + "' for this key; initialize a new one.");
                    return;
                }
            }
            request.setAttribute(USER, user.get());
            chain.doFilter(request, response);
            String opened = response.getHeader(SESSION_HEADER);
            if (session == null && opened != null) {
                sessionUsers.put(opened, user.get());
            }
            if (session != null && "DELETE".equals(request.getMethod()) && response.getStatus() < 300) {
                sessionUsers.remove(session);
            }
        }

        private static void refuse(HttpServletResponse response, int status, String message) throws IOException {
            response.setStatus(status);
            response.setContentType("application/json");
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            String json = "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32001,\"message\":"
                    + Json.MAPPER.writeValueAsString(message) + "},\"id\":null}";
            response.getWriter().write(json);
        }
    }
}
