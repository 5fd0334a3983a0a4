package dev.engram.server;

import dev.engram.memory.Embedder;
import dev.engram.memory.KeyStore;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MigratedSqlite;
import dev.engram.memory.lucene.LuceneMemorySearch;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A live server on a free port over a real SQLite file, Lucene index and embedding model, answering with
 * {@link EchoModel}; keys for users {@code ana} and {@code ben} and an admin key; an HTTP client.
 */
final class ServerFixture implements AutoCloseable {
    static final JsonMapper JSON = JsonMapper.builder().build();
    private static Embedder embedder;

    final MemoryStore store;
    final MemorySearch search;
    final EngramServer server;
    final String ana;
    final String ben;
    final String admin;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The response of one request: its status, body text and, when it is JSON, the body. */
    record Response(int status, String text, JsonNode json, java.net.http.HttpHeaders headers) {
        String detail() {
            return json.path("detail").isString() ? json.path("detail").asString() : json.path("detail").toString();
        }
    }

    ServerFixture(Path dir) {
        this(dir, b -> { });
    }

    ServerFixture(Path dir, Consumer<EngramServer.Builder> configure) {
        store = MemoryStore.sqlite(MigratedSqlite.at(dir.resolve("memory.db")));
        search = LuceneMemorySearch.builder(store, sharedEmbedder()).directory(dir.resolve("index")).build();
        EngramServer.Builder b = EngramServer.builder(store, search).runtime(rt -> rt.model("test:echo", new EchoModel()))
                .defaultModel("test:echo").port(0).pingInterval(Duration.ofMillis(50)).shutdownGrace(Duration.ofSeconds(5));
        configure.accept(b);
        server = b.start();
        ana = store.keys().create(Optional.of("ana"), "ana").secret();
        ben = store.keys().create(Optional.of("ben"), "ben").secret();
        admin = store.keys().create(Optional.empty(), "admin").secret();
    }

    static synchronized Embedder sharedEmbedder() {
        if (embedder == null) {
            embedder = Embedder.onnxDefault();
        }
        return embedder;
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    Response get(String key, String path) {
        return call("GET", key, path, null);
    }

    Response post(String key, String path, Object body) {
        return call("POST", key, path, body);
    }

    Response patch(String key, String path, Object body) {
        return call("PATCH", key, path, body);
    }

    Response delete(String key, String path) {
        return call("DELETE", key, path, null);
    }

    /** A request with a JSON body (a string is sent as it is, so that malformed JSON can be sent). */
    Response call(String method, String key, String path, Object body) {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(60));
        if (key != null) {
            req.header("Authorization", "Bearer " + key);
        }
        String text = body == null ? null : body instanceof String s ? s : JSON.writeValueAsString(body);
        if (text != null) {
            req.header("Content-Type", "application/json");
        }
        req.method(method, text == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(text));
        return send(req.build());
    }

    Response send(HttpRequest request) {
        try {
            HttpResponse<String> res = http.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode json;
            try {
                json = res.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(res.body());
            } catch (RuntimeException e) {
                json = JSON.createObjectNode();
            }
            return new Response(res.statusCode(), res.body(), json, res.headers());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A {@code multipart/form-data} POST whose {@code file} field holds {@code content} under {@code fileName}. */
    Response multipart(String key, String path, String fileName, byte[] content) {
        String boundary = "----engram" + UUID.randomUUID();
        byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + fileName
                + "\"\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[head.length + content.length + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        System.arraycopy(content, 0, body, head.length, content.length);
        System.arraycopy(tail, 0, body, head.length + content.length, tail.length);
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (key != null) {
            req.header("Authorization", "Bearer " + key);
        }
        return send(req.build());
    }

    /** The data of each SSE event of a streamed response, in order; an {@code error} event's data prefixed "error:". */
    List<String> stream(String key, String path, Object body) {
        Response r = post(key, path, body);
        if (r.status() != 200) {
            throw new AssertionError("stream answered " + r.status() + ": " + r.text());
        }
        List<String> events = new ArrayList<>();
        String event = null;
        for (String line : r.text().split("\n")) {
            if (line.startsWith("event:")) {
                event = line.substring(6).trim();
            } else if (line.startsWith("data:")) {
                String data = line.substring(5).strip();
                events.add("error".equals(event) ? "error:" + data : data);
            } else if (line.isBlank()) {
                event = null;
            }
        }
        return events;
    }

    static ObjectNode obj(Object... keyValues) {
        ObjectNode o = JSON.createObjectNode();
        for (int i = 0; i < keyValues.length; i += 2) {
            o.set((String) keyValues[i], JSON.valueToTree(keyValues[i + 1]));
        }
        return o;
    }

    /** Creates an agent for the key's user with a human and a persona block; returns its id. */
    String agent(String key, String name) {
        Response r = post(key, "/v1/agents/", obj("name", name, "memory_blocks", List.of(
                obj("label", "human", "value", "The user's name is unknown.", "limit", 2000),
                obj("label", "persona", "value", "I am a helpful assistant."))));
        if (r.status() != 200) {
            throw new AssertionError("create agent answered " + r.status() + ": " + r.text());
        }
        return r.json().path("id").asString();
    }

    ObjectNode userMessage(String text) {
        return obj("messages", List.of(obj("role", "user", "content", text)));
    }

    @Override
    public void close() {
        server.close();
        search.close();
        store.close();
    }
}
