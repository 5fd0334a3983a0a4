package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.postgres.PostgresBackend;
import dev.engram.memory.postgres.PostgresLocks;
import dev.engram.memory.postgres.PostgresServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Two servers on one PostgreSQL database, as two machines would run them: each with its own search index following
 * the database's change log and a turn lock in the database. What one stores, the other serves and finds; an agent
 * runs one turn at a time wherever its messages arrive; a change of an agent through one is what the other uses.
 * Skipped, with a message, when no PostgreSQL server binaries are installed.
 */
class SharedDatabaseServerTest {
    private static PostgresServer postgres;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        postgres = PostgresServer.sharedOrSkip();
    }

    @AfterAll
    static void stop() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    /** One server over the shared database: its store, index, lock pool and the server. */
    record Instance(MemoryStore store, MemorySearch search, PostgresLocks locks, EngramServer server) implements AutoCloseable {
        static Instance start(String url, Path index) {
            MemoryStore store = MemoryStore.over(PostgresBackend.open(url, "postgres", ""));
            MemorySearch search = LuceneMemorySearch.builder(store, ServerFixture.sharedEmbedder()).directory(index).build();
            PostgresLocks locks = PostgresLocks.open(url, "postgres", "", 16);
            EngramServer server = EngramServer.builder(store, search).runtime(rt -> rt.model("test:echo", new EchoModel()))
                    .defaultModel("test:echo").port(0).turnLock(TurnLock.byName(locks::acquire)).start();
            return new Instance(store, search, locks, server);
        }

        String url(String path) {
            return "http://127.0.0.1:" + server.port() + path;
        }

        @Override
        public void close() {
            server.close();
            locks.close();
            search.close();
            store.close();
        }
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static JsonNode call(String method, String url, String key, Object body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key);
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(ServerFixture.JSON.writeValueAsString(body)));
        HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("%s %s: %s", method, url, r.body()).isEqualTo(200);
        return ServerFixture.JSON.readTree(r.body());
    }

    @Test
    void twoServersShareAgentsMemoryKeysAndOneTurnAtATimePerAgent() throws Exception {
        String url = postgres.jdbcUrl(postgres.newSchema());
        try (Instance a = Instance.start(url, dir.resolve("index-a")); Instance b = Instance.start(url, dir.resolve("index-b"))) {
            String key = a.store().keys().create(Optional.of("ana"), "shared").secret();
            String agent = call("POST", a.url("/v1/agents/"), key, obj("name", "helper", "memory_blocks",
                    List.of(obj("label", "human", "value", "Ana")))).path("id").asString();

            assertThat(call("GET", b.url("/v1/agents/" + agent), key, null).path("name").asString()).isEqualTo("helper");
            JsonNode reply = call("POST", b.url("/v1/agents/" + agent + "/messages"), key, obj("input", "hello from b"));
            assertThat(reply.toString()).contains("You said: hello from b");

            call("POST", a.url("/v1/agents/" + agent + "/archival-memory"), key, obj("text", "Ana's sister lives in Zanzibar."));
            JsonNode found = call("GET", b.url("/v1/agents/" + agent + "/archival-memory/search?query=zanzibar&top_k=1"), key, null);
            assertThat(found.path("results").get(0).path("content").asString()).as("searchable through the other server at once")
                    .contains("Zanzibar");

            call("PATCH", b.url("/v1/agents/" + agent), key, obj("system", "Changed through b."));
            assertThat(call("GET", a.url("/v1/agents/" + agent), key, null).path("system").asString()).isEqualTo("Changed through b.");

            // Two slow messages to one agent through the two servers at once: the second waits for the first.
            List<CompletableFuture<JsonNode>> sends = new ArrayList<>();
            for (Instance through : List.of(a, b, a, b)) {
                sends.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return call("POST", through.url("/v1/agents/" + agent + "/messages"), key, obj("input", "sleep 150 turn"));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            for (CompletableFuture<JsonNode> s : sends) {
                assertThat(s.get().toString()).contains("You said: turn");
            }
            List<ConversationMessage> history = a.store().messages().list(Scope.of("ana", agent), MessageQuery.all());
            List<MessageRole> roles = history.stream().map(ConversationMessage::role).toList();
            for (int i = 0; i < roles.size(); i += 3) {
                assertThat(roles.subList(i, i + 3)).as("turns do not interleave: %s", roles)
                        .containsExactly(MessageRole.USER, MessageRole.ASSISTANT, MessageRole.TOOL);
            }
            assertThat(roles).hasSize(3 * 5);

            call("DELETE", a.url("/v1/agents/" + agent), key, null);
            HttpResponse<String> gone = HTTP.send(HttpRequest.newBuilder(URI.create(b.url("/v1/agents/" + agent)))
                    .header("Authorization", "Bearer " + key).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(gone.statusCode()).as("deleted through the other server").isEqualTo(404);
        }
    }

    /** The data of each SSE event a POST answers, in order (an {@code error} event's prefixed "error:"). */
    private static List<String> sse(String url, String key, Object body) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ServerFixture.JSON.writeValueAsString(body))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> events = new ArrayList<>();
        String event = null;
        for (String line : r.body().split("\n")) {
            if (line.startsWith("event:")) {
                event = line.substring(6).trim();
            } else if (line.startsWith("data:")) {
                events.add(("error".equals(event) ? "error:" : "") + line.substring(5).strip());
            } else if (line.isBlank()) {
                event = null;
            }
        }
        return events;
    }

    @Test
    void aBackgroundStreamOnOneServerIsResumedAndFollowedThroughTheOther() throws Exception {
        String url = postgres.jdbcUrl(postgres.newSchema());
        try (Instance a = Instance.start(url, dir.resolve("index-a")); Instance b = Instance.start(url, dir.resolve("index-b"))) {
            String key = a.store().keys().create(Optional.of("ana"), "shared").secret();
            String agent = call("POST", a.url("/v1/agents/"), key, obj("name", "helper")).path("id").asString();

            // a live run on a, followed through b from its start: b reads what a writes to the database
            CompletableFuture<List<String>> onA = CompletableFuture.supplyAsync(() -> {
                try {
                    return sse(a.url("/v1/agents/" + agent + "/messages/stream"), key, obj("input", "sleep 1000 far away",
                            "background", true, "stream_tokens", true));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            List<String> throughB = null;
            for (int i = 0; i < 100 && throughB == null; i++) {
                Thread.sleep(20);
                HttpResponse<String> probe = HTTP.send(HttpRequest.newBuilder(URI.create(b.url("/v1/conversations/default/stream")))
                        .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(obj("agent_id", agent, "include_pings", false).toString())).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (probe.statusCode() == 200) {
                    throughB = probe.body().lines().filter(l -> l.startsWith("data:")).map(l -> l.substring(5).strip()).toList();
                } else {
                    assertThat(probe.body()).contains("No active runs found");
                }
            }
            List<String> original = onA.get();
            assertThat(throughB).as("b found a's run while it ran").isNotNull();
            assertThat(throughB).isEqualTo(original);
            assertThat(original.toString()).contains("\"stop_reason\":\"end_turn\"", "r away");

            // after the end, b gives exactly the events after the one the client saw
            String run = ServerFixture.JSON.readTree(original.getFirst()).path("run_id").asString();
            assertThat(sse(b.url("/v1/runs/" + run + "/stream"), key, obj("starting_after", 2)))
                    .isEqualTo(original.subList(2, original.size()));
            assertThat(call("GET", b.url("/v1/runs/" + run), key, null).path("status").asString()).isEqualTo("completed");
            String other = b.store().keys().create(Optional.of("ben"), "other").secret();
            HttpResponse<String> foreign = HTTP.send(HttpRequest.newBuilder(URI.create(b.url("/v1/runs/" + run)))
                    .header("Authorization", "Bearer " + other).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(foreign.statusCode()).isEqualTo(404);
        }
    }

    @Test
    void anAsyncRunOnOneServerIsStreamedAndItsStepsReadThroughTheOther() throws Exception {
        String url = postgres.jdbcUrl(postgres.newSchema());
        try (Instance a = Instance.start(url, dir.resolve("index-a")); Instance b = Instance.start(url, dir.resolve("index-b"))) {
            String key = a.store().keys().create(Optional.of("ana"), "shared").secret();
            String agent = call("POST", a.url("/v1/agents/"), key, obj("name", "helper")).path("id").asString();
            JsonNode started = call("POST", a.url("/v1/agents/" + agent + "/messages/async"), key,
                    obj("messages", List.of(obj("role", "user", "content", "sleep 500 async far away"))));
            String run = started.path("id").asString();
            assertThat(started.path("status").asString()).isIn("created", "running");

            // b follows a's run from its start to its end, then has its steps
            List<String> throughB = sse(b.url("/v1/runs/" + run + "/stream"), key, obj("starting_after", 0,
                    "include_pings", false));
            assertThat(throughB.toString()).contains("\"stop_reason\":\"end_turn\"", "async far away");
            assertThat(call("GET", b.url("/v1/runs/" + run), key, null).path("status").asString()).isEqualTo("completed");
            JsonNode steps = call("GET", b.url("/v1/runs/" + run + "/steps"), key, null);
            assertThat(steps.size()).isPositive();
            assertThat(call("GET", b.url("/v1/steps/" + steps.get(0).path("id").asString()), key, null).path("run_id")
                    .asString()).isEqualTo(run);
        }
    }
}
