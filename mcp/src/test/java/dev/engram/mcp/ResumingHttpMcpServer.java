package dev.engram.mcp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A scripted MCP server over Streamable HTTP on 127.0.0.1 that records what reaches it (method, JSON-RPC method,
 * {@code Mcp-Session-Id}, {@code Last-Event-ID}, when). {@code initialize} and {@code tools/list} (one tool {@code add})
 * are answered with JSON and a session id; how {@code tools/call} is answered, and a {@code GET} resuming it, is the
 * {@link Mode}. A {@code GET} without {@code Last-Event-ID} (the server-initiated stream) is 405 unless
 * {@link #push} set a message to send on it, then the stream stays open until the server closes.
 */
final class ResumingHttpMcpServer implements AutoCloseable {
    /** How tools/call is answered. */
    enum Mode {
        /** With JSON. */
        JSON,
        /** With an SSE stream holding a priming event ({@code id: e1}, {@code retry}) then closed; GET with e1 answers. */
        RESUME,
        /** As RESUME, but every GET resuming it is answered 503. */
        NEVER_RESUME,
        /** As RESUME, but a GET resuming it is answered 405. */
        REFUSE_RESUME,
        /** With an SSE stream of garbage lines and an event whose data is not JSON. */
        GARBAGE,
        /** With an SSE stream of garbage lines only, without any event id, then closed. */
        GARBAGE_ONLY
    }

    /** One request as it arrived. */
    record Seen(String method, String rpcMethod, Optional<String> session, Optional<String> lastEventId, long nanos) {
    }

    static final String SESSION = "session-7";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpServer server;
    private final Mode mode;
    private final long retryMillis;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final CountDownLatch stopping = new CountDownLatch(1);
    private volatile JsonNode pendingCall;
    private volatile long streamClosedNanos;
    private volatile String pushed;

    private ResumingHttpMcpServer(Mode mode, long retryMillis) throws IOException {
        this.mode = mode;
        this.retryMillis = retryMillis;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/mcp", this::handle);
        server.start();
    }

    /** Starts a server answering tools/call as {@code mode}, with {@code retry: retryMillis} on its streams. */
    static ResumingHttpMcpServer start(Mode mode, long retryMillis) throws IOException {
        return new ResumingHttpMcpServer(mode, retryMillis);
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/mcp";
    }

    /** Sends {@code message} (JSON-RPC) on the server-initiated stream the client opens. */
    void push(String message) {
        pushed = message;
    }

    List<Seen> seen() {
        return List.copyOf(seen);
    }

    /** The GETs that resumed a stream (those with a Last-Event-ID). */
    List<Seen> resumptions() {
        return seen.stream().filter(s -> s.method().equals("GET") && s.lastEventId().isPresent()).toList();
    }

    /** When the tools/call stream was closed (System.nanoTime), 0 before. */
    long streamClosedNanos() {
        return streamClosedNanos;
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            Optional<String> session = Optional.ofNullable(ex.getRequestHeaders().getFirst("Mcp-Session-Id"));
            Optional<String> last = Optional.ofNullable(ex.getRequestHeaders().getFirst("Last-Event-ID"));
            long now = System.nanoTime();
            switch (ex.getRequestMethod()) {
                case "POST" -> {
                    JsonNode request = JSON.readTree(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                    seen.add(new Seen("POST", request.path("method").asString(""), session, last, now));
                    post(ex, request);
                }
                case "GET" -> {
                    seen.add(new Seen("GET", "", session, last, now));
                    if (last.isPresent()) {
                        resume(ex);
                    } else if (pushed != null) {
                        ex.getResponseHeaders().add("Content-Type", "text/event-stream");
                        ex.sendResponseHeaders(200, 0);
                        write(ex.getResponseBody(), "id: s1\ndata: " + pushed + "\n\n");
                        stopping.await();
                    } else {
                        ex.sendResponseHeaders(405, -1);
                    }
                }
                default -> {
                    seen.add(new Seen(ex.getRequestMethod(), "", session, last, now));
                    ex.sendResponseHeaders(200, -1);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void post(HttpExchange ex, JsonNode request) throws IOException {
        if (!request.has("id")) {
            ex.sendResponseHeaders(202, -1);
            return;
        }
        ObjectNode response = JSON.createObjectNode().put("jsonrpc", "2.0");
        response.set("id", request.get("id"));
        switch (request.path("method").asString()) {
            case "initialize" -> {
                ObjectNode r = response.putObject("result");
                r.put("protocolVersion", request.path("params").path("protocolVersion").asString("2025-06-18"));
                r.putObject("capabilities").putObject("tools");
                r.putObject("serverInfo").put("name", "resuming").put("version", "1");
                ex.getResponseHeaders().add("Mcp-Session-Id", SESSION);
            }
            case "tools/list" -> {
                ObjectNode tool = response.putObject("result").putArray("tools").addObject();
                tool.put("name", "add").put("description", "Adds two numbers.");
                tool.putObject("inputSchema").put("type", "object");
            }
            case "tools/call" -> {
                if (mode != Mode.JSON) {
                    callStream(ex, request);
                    return;
                }
                response.set("result", sum(request));
            }
            default -> response.putObject("result");
        }
        byte[] bytes = JSON.writeValueAsString(response).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    /** Answers tools/call with an SSE stream that ends before the answer (or with garbage). */
    private void callStream(HttpExchange ex, JsonNode request) throws IOException {
        pendingCall = request;
        ex.getResponseHeaders().add("Content-Type", "text/event-stream");
        ex.sendResponseHeaders(200, 0);
        OutputStream out = ex.getResponseBody();
        switch (mode) {
            case GARBAGE -> write(out, "<html>not an event stream\r\n}{ garbage\r\n\r\nid: g1\ndata: {\"jsonrpc\": broken\n\n");
            case GARBAGE_ONLY -> write(out, "<html>not an event stream\n}{ garbage\n\n");
            default -> write(out, "id: e1\nretry: " + retryMillis + "\ndata: \n\n");
        }
        out.close();
        streamClosedNanos = System.nanoTime();
    }

    /** Answers a GET with Last-Event-ID after the tools/call stream closed. */
    private void resume(HttpExchange ex) throws IOException {
        switch (mode) {
            case NEVER_RESUME -> ex.sendResponseHeaders(503, -1);
            case REFUSE_RESUME -> ex.sendResponseHeaders(405, -1);
            default -> {
                ObjectNode response = JSON.createObjectNode().put("jsonrpc", "2.0");
                response.set("id", pendingCall.get("id"));
                response.set("result", sum(pendingCall));
                ex.getResponseHeaders().add("Content-Type", "text/event-stream");
                ex.sendResponseHeaders(200, 0);
                write(ex.getResponseBody(), "id: e2\nevent: message\ndata: " + JSON.writeValueAsString(response) + "\n\n");
            }
        }
    }

    private static ObjectNode sum(JsonNode request) {
        JsonNode a = request.path("params").path("arguments");
        ObjectNode result = JSON.createObjectNode();
        result.putArray("content").addObject().put("type", "text")
                .put("text", String.valueOf(a.path("a").asDouble() + a.path("b").asDouble()));
        return result;
    }

    private static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @Override
    public void close() {
        stopping.countDown();
        server.stop(0);
    }
}
