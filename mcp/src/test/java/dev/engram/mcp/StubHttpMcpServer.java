package dev.engram.mcp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A minimal MCP server over Streamable HTTP on 127.0.0.1, for tests: {@code POST /mcp} answers JSON-RPC with JSON
 * (initialize with a session id, tools/list with one tool {@code add}, tools/call adding {@code a} and {@code b}), only
 * with {@code Authorization: Bearer TOKEN} (else 401); {@code GET} is 405 (no server-initiated stream). While
 * {@link #failing} is set, every request is answered 500.
 */
public final class StubHttpMcpServer implements AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpServer server;
    private final String token;
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private volatile boolean failing;

    private StubHttpMcpServer(String token) throws IOException {
        this.token = token;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/mcp", this::handle);
        server.start();
    }

    /** Starts a server that wants {@code Authorization: Bearer token}. */
    public static StubHttpMcpServer start(String token) throws IOException {
        return new StubHttpMcpServer(token);
    }

    /** Its MCP endpoint. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/mcp";
    }

    /** Makes every request fail with 500 (true) or be answered again (false). */
    public void failing(boolean fail) {
        failing = fail;
    }

    /** How many tools/call requests it answered. */
    public int calls() {
        return calls.get();
    }

    /** How many HTTP requests reached it. */
    public int requests() {
        return requests.get();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            requests.incrementAndGet();
            if (!("Bearer " + token).equals(ex.getRequestHeaders().getFirst("Authorization"))) {
                send(ex, 401, "{\"error\":\"unauthorized\"}");
                return;
            }
            if (failing) {
                send(ex, 500, "{\"error\":\"failing\"}");
                return;
            }
            if (!ex.getRequestMethod().equals("POST")) {
                send(ex, ex.getRequestMethod().equals("DELETE") ? 200 : 405, "");
                return;
            }
            JsonNode request = JSON.readTree(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            if (!request.has("id")) {
                send(ex, 202, "");
                return;
            }
            ObjectNode response = JSON.createObjectNode().put("jsonrpc", "2.0");
            response.set("id", request.get("id"));
            switch (request.path("method").asString()) {
                case "initialize" -> {
                    ObjectNode r = response.putObject("result");
                    r.put("protocolVersion", request.path("params").path("protocolVersion").asString("2025-06-18"));
                    r.putObject("capabilities").putObject("tools");
                    r.putObject("serverInfo").put("name", "stub-http").put("version", "1");
                    ex.getResponseHeaders().add("Mcp-Session-Id", UUID.randomUUID().toString());
                }
                case "tools/list" -> {
                    ObjectNode tool = response.putObject("result").putArray("tools").addObject();
                    tool.put("name", "add").put("description", "Adds two numbers.");
                    ObjectNode schema = tool.putObject("inputSchema").put("type", "object");
                    schema.putObject("properties").putObject("a").put("type", "number");
                    ((ObjectNode) schema.get("properties")).putObject("b").put("type", "number");
                    schema.putArray("required").add("a").add("b");
                }
                case "tools/call" -> {
                    calls.incrementAndGet();
                    JsonNode a = request.path("params").path("arguments");
                    response.putObject("result").putArray("content").addObject().put("type", "text")
                            .put("text", String.valueOf(a.path("a").asDouble() + a.path("b").asDouble()));
                }
                case "ping" -> response.putObject("result");
                default -> response.putObject("error").put("code", -32601).put("message", "no such method");
            }
            ex.getResponseHeaders().add("Content-Type", "application/json");
            send(ex, 200, JSON.writeValueAsString(response));
        }
    }

    private static void send(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            ex.getResponseBody().write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
