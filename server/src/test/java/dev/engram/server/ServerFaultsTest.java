package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ModelSpec;
import dev.engram.framework.model.RetryPolicy;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.lucene.LuceneMemorySearch;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults an operator meets, seen from a client: a model provider that never answers ends the turn with a
 * Letta-style 504 naming the provider and the timeout (and a stream with an error event), and an
 * embedding model that cannot be opened leaves the server answering, searching with BM25, with a health
 * status that says so.
 */
class ServerFaultsTest {
    @TempDir
    Path dir;

    /** Accepts connections on 127.0.0.1, reads nothing and never answers. */
    private static final class SilentProvider implements AutoCloseable {
        final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final List<Socket> held = new CopyOnWriteArrayList<>();

        SilentProvider() throws IOException {
            Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        held.add(socket.accept());
                    }
                } catch (IOException e) {
                    // closed
                }
            });
        }

        @Override
        public void close() throws IOException {
            socket.close();
            for (Socket s : held) {
                s.close();
            }
        }
    }

    @Test
    void aModelThatNeverAnswersEndsTheTurnWithA504NamingTheProviderAndTheTimeout() throws IOException {
        try (SilentProvider provider = new SilentProvider()) {
            ChatModel silent = ChatModel.of(ModelSpec.parse("http://127.0.0.1:" + provider.socket.getLocalPort() + "/v1#m",
                    Map.of()).withTimeout(Duration.ofMillis(300)).withRetry(RetryPolicy.none()));
            try (ServerFixture fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", new EchoModel())
                    .model("test:silent", silent)).defaultModel("test:silent"))) {
                String agent = fx.agent(fx.ana, "waiter");
                long start = System.nanoTime();
                ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("hello?"));
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
                assertThat(r.status()).isEqualTo(504);
                assertThat(r.detail()).contains("openai-compatible server 127.0.0.1:" + provider.socket.getLocalPort())
                        .contains("did not answer within the timeout of 300 ms").doesNotContain("Exception").doesNotContain("at dev.");
                List<String> events = fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream", fx.userMessage("still?"));
                assertThat(events).anySatisfy(e -> assertThat(e).startsWith("error:").contains("did not answer within the timeout"));
                assertThat(events.getLast()).isEqualTo("[DONE]");
            }
        }
    }

    @Test
    void anEmbeddingModelThatCannotOpenLeavesTheServerSearchingWithBm25AndHealthDegraded() {
        Embedder broken = Embedder.unavailable("onnx:all-minilm-l6-v2-q:384", 384, "Protobuf parsing failed");
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));
                MemorySearch search = LuceneMemorySearch.builder(store, broken).directory(dir.resolve("index")).build();
                EngramServer server = EngramServer.builder(store, search).runtime(rt -> rt.model("test:echo", new EchoModel()))
                        .defaultModel("test:echo").port(0).start()) {
            ServerFixture.Response health = get(server, null, "/v1/health");
            assertThat(health.status()).isEqualTo(200);
            assertThat(health.json().path("status").asString()).isEqualTo("degraded");
            assertThat(health.json().path("degraded").asBoolean()).isTrue();
            assertThat(health.json().path("reasons").get(0).asString()).contains("BM25 alone").contains("Protobuf parsing failed");

            String key = store.keys().create(java.util.Optional.of("ana"), "ana").secret();
            ServerFixture.Response created = post(server, key, "/v1/agents/", "{\"name\":\"keeper\"}");
            assertThat(created.status()).isEqualTo(200);
            String agent = created.json().path("id").asString();
            assertThat(post(server, key, "/v1/agents/" + agent + "/archival-memory",
                    "{\"text\":\"The spare key is under the blue flowerpot.\"}").status()).isEqualTo(200);
            ServerFixture.Response found = get(server, key, "/v1/agents/" + agent + "/archival-memory/search?query=spare%20key");
            assertThat(found.status()).isEqualTo(200);
            assertThat(found.text()).contains("blue flowerpot");
        }
    }

    private static ServerFixture.Response get(EngramServer server, String key, String path) {
        return send(server, "GET", key, path, null);
    }

    private static ServerFixture.Response post(EngramServer server, String key, String path, String body) {
        return send(server, "POST", key, path, body);
    }

    private static ServerFixture.Response send(EngramServer server, String method, String key, String path, String body) {
        java.net.http.HttpRequest.Builder req = java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + server.port() + path)).timeout(Duration.ofSeconds(60));
        if (key != null) {
            req.header("Authorization", "Bearer " + key);
        }
        if (body != null) {
            req.header("Content-Type", "application/json");
        }
        req.method(method, body == null ? java.net.http.HttpRequest.BodyPublishers.noBody()
                : java.net.http.HttpRequest.BodyPublishers.ofString(body));
        try {
            java.net.http.HttpResponse<String> res = java.net.http.HttpClient.newHttpClient().send(req.build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            return new ServerFixture.Response(res.statusCode(), res.body(),
                    res.body().isBlank() ? ServerFixture.JSON.createObjectNode() : ServerFixture.JSON.readTree(res.body()),
                    res.headers());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
