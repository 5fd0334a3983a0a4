package dev.engram.mcp;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where an MCP server is and how to reach it: a command started over stdio, or a URL spoken to over SSE or Streamable
 * HTTP with extra headers (a bearer token is an {@code Authorization} header). A value: build one with {@link #stdio},
 * {@link #sse} or {@link #streamableHttp}; each checks its input at once.
 *
 * @param name        the server's name, {@code [A-Za-z0-9_-]{1,40}}; its tools are named {@code <name>_<tool>}
 * @param transport   how the server is reached
 * @param command     the program and its arguments (stdio only, else empty)
 * @param environment extra environment variables of the program (stdio only)
 * @param url         the server's endpoint, http(s) (SSE and Streamable HTTP only, else empty)
 * @param headers     headers sent with every request (SSE and Streamable HTTP only)
 */
public record McpServerSpec(String name, McpTransport transport, List<String> command, Map<String, String> environment,
        String url, Map<String, String> headers) {
    /** Headers the JDK's HTTP client sets itself and refuses to take from a caller. */
    private static final Set<String> RESTRICTED_HEADERS = Set.of("connection", "content-length", "expect", "host", "upgrade");

    /**
     * @throws IllegalArgumentException if the name is not {@code [A-Za-z0-9_-]{1,40}}, a stdio server has no command,
     *                                  an HTTP server's URL is not http(s) with a host, or a header is one the HTTP
     *                                  client sets itself or has a line break
     */
    public McpServerSpec {
        Objects.requireNonNull(name, "MCP server name must not be null");
        Objects.requireNonNull(transport, "MCP transport must not be null");
        if (!name.matches("[A-Za-z0-9_-]{1,40}")) {
            throw new IllegalArgumentException("An MCP server name is 1 to 40 letters, digits, '_' or '-', got '" + name + "'");
        }
        command = List.copyOf(command);
        environment = Map.copyOf(environment);
        headers = Map.copyOf(new TreeMap<>(headers));
        url = url.strip();
        if (transport == McpTransport.STDIO) {
            if (command.isEmpty() || command.getFirst().isBlank()) {
                throw new IllegalArgumentException("MCP server '" + name + "' is started by a command: give the program "
                        + "(and its arguments)");
            }
        } else {
            checkUrl(name, url);
            for (Map.Entry<String, String> h : headers.entrySet()) {
                if (!h.getKey().matches("[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}")
                        || RESTRICTED_HEADERS.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                    throw new IllegalArgumentException("MCP server '" + name + "': '" + h.getKey() + "' cannot be sent as "
                            + "a header (a header name is a token, and Host, Connection, Content-Length, Expect and "
                            + "Upgrade are the HTTP client's own)");
                }
                if (h.getValue().chars().anyMatch(c -> c == '\r' || c == '\n')) {
                    throw new IllegalArgumentException("MCP server '" + name + "': the value of header '" + h.getKey()
                            + "' has a line break");
                }
            }
        }
    }

    /** A server started as {@code command} (the program, then its arguments), spoken to over its stdin and stdout. */
    public static McpServerSpec stdio(String name, List<String> command, Map<String, String> environment) {
        return new McpServerSpec(name, McpTransport.STDIO, command, environment, "", Map.of());
    }

    /** A server reached over the older HTTP+SSE transport at {@code url} (its SSE endpoint, e.g. {@code .../sse}). */
    public static McpServerSpec sse(String name, String url, Map<String, String> headers) {
        return new McpServerSpec(name, McpTransport.SSE, List.of(), Map.of(), url, headers);
    }

    /** A server reached over Streamable HTTP at {@code url} (its MCP endpoint, e.g. {@code .../mcp}). */
    public static McpServerSpec streamableHttp(String name, String url, Map<String, String> headers) {
        return new McpServerSpec(name, McpTransport.STREAMABLE_HTTP, List.of(), Map.of(), url, headers);
    }

    /** This server with a bearer token: {@code Authorization: Bearer TOKEN} on every request. */
    public McpServerSpec withBearerToken(String token) {
        if (transport == McpTransport.STDIO) {
            throw new IllegalArgumentException("MCP server '" + name + "' runs over stdio: a bearer token is for HTTP servers");
        }
        Map<String, String> h = new TreeMap<>(headers);
        h.put("Authorization", "Bearer " + token.strip());
        return new McpServerSpec(name, transport, command, environment, url, h);
    }

    /** The host of an HTTP server's URL; empty for stdio. */
    public String host() {
        return url.isEmpty() ? "" : URI.create(url).getHost();
    }

    /** What the spec says, for logs and errors, without header values or environment values (they may be secrets). */
    public String describe() {
        String d = transport == McpTransport.STDIO ? String.join(" ", command) : transport.label() + " " + url;
        return d.length() > 200 ? d.substring(0, 200) + "…" : d;
    }

    private static void checkUrl(String name, String url) {
        try {
            URI uri = URI.create(url);
            if ((!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) || uri.getHost() == null
                    || uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
                throw new IllegalArgumentException(url);
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("MCP server '" + name + "' needs an http(s) URL with a host and no user or "
                    + "fragment, such as https://example.com/mcp; got '" + url + "'");
        }
    }
}
