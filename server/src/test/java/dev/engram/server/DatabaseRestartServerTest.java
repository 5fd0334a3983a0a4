package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.postgres.PostgresBackend;
import dev.engram.memory.postgres.PostgresLocks;
import dev.engram.memory.postgres.PostgresServer;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * PostgreSQL restarted ({@code pg_ctl stop -m fast}, then start) under a server taking messages from several
 * clients: every message answered 2xx is in the database afterwards, the turns that ran into the outage end with a
 * 503 that says the memory store is unavailable (no exception names, no hang past the store's timeout), and the
 * same server answers 2xx again once PostgreSQL is back. Skipped, with a message, when no PostgreSQL server
 * binaries are installed.
 */
class DatabaseRestartServerTest {
    private static final Duration STORE_TIMEOUT = Duration.ofSeconds(2);
    /** The longest a request may take: a turn makes several store calls, each failing within the store's timeout. */
    private static final Duration REQUEST_BOUND = Duration.ofSeconds(20);
    private static final int CLIENTS = 4;

    @TempDir
    Path dir;

    /** One request's outcome. */
    record Sent(int client, String text, int status, String detail, long millis, long startedAt) {
    }

    @Test
    void aPostgresRestartUnderLoadLosesNoAcknowledgedMessageAnswers503AndServiceResumes() throws Exception {
        try (PostgresServer postgres = PostgresServer.startOrSkip()) {
            String url = postgres.jdbcUrl(postgres.newSchema());
            MemoryStore store = MemoryStore.over(PostgresBackend.open(url, "postgres", "", 8, STORE_TIMEOUT));
            MemorySearch search = LuceneMemorySearch.builder(store, ServerFixture.sharedEmbedder()).directory(dir.resolve("index"))
                    .backgroundInterval(Duration.ofMillis(200)).build();
            PostgresLocks locks = PostgresLocks.open(url, "postgres", "", 16, STORE_TIMEOUT);
            EngramServer server = EngramServer.builder(store, search).runtime(rt -> rt.model("test:echo", new EchoModel()))
                    .defaultModel("test:echo").port(0).turnLock(TurnLock.byName(locks::acquire)).start();
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            try {
                String key = store.keys().create(Optional.of("ana"), "ana").secret();
                List<String> agents = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    agents.add(post(http, server, key, "/v1/agents/", obj("name", "agent-" + c)).path("id").asString());
                }
                ConcurrentLinkedQueue<Sent> sent = new ConcurrentLinkedQueue<>();
                AtomicBoolean stop = new AtomicBoolean();
                long t0 = System.nanoTime();
                List<Future<?>> running = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    int client = c;
                    running.add(clients.submit(() -> {
                        for (int i = 0; !stop.get(); i++) {
                            String text = "c" + client + "-m" + i;
                            long started = System.nanoTime();
                            HttpResponse<String> r = send(http, server, key, "/v1/agents/" + agents.get(client) + "/messages",
                                    obj("input", "sleep 100 " + text));
                            JsonNode body = ServerFixture.JSON.readTree(r.body());
                            sent.add(new Sent(client, text, r.statusCode(), body.path("detail").asString(""),
                                    (System.nanoTime() - started) / 1_000_000, (started - t0) / 1_000_000));
                        }
                        return null;
                    }));
                }

                Thread.sleep(1_500);
                long down = System.nanoTime();
                postgres.stop();
                Thread.sleep(2_000);
                postgres.startAgain();
                long outageMillis = (System.nanoTime() - down) / 1_000_000;
                long backAt = (System.nanoTime() - t0) / 1_000_000;
                // Service resumes: every client gets 2xx answers again after the restart, within the pool's reconnect.
                long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                while (System.nanoTime() < deadline && !allAnsweredAfter(sent, backAt + STORE_TIMEOUT.toMillis())) {
                    Thread.sleep(100);
                }
                stop.set(true);
                for (Future<?> f : running) {
                    f.get();
                }

                List<Sent> all = List.copyOf(sent);
                List<Sent> ok = all.stream().filter(s -> s.status() == 200).toList();
                List<Sent> unavailable = all.stream().filter(s -> s.status() == 503).toList();
                long firstOkAfter = ok.stream().filter(s -> s.startedAt() >= backAt).mapToLong(s -> s.startedAt() + s.millis() - backAt)
                        .min().orElse(-1);
                System.out.printf("PostgreSQL restart under load: outage %d ms; %d requests, %d answered 200, %d answered 503, "
                        + "slowest %d ms; first 200 after the restart %d ms after PostgreSQL was back%n", outageMillis, all.size(),
                        ok.size(), unavailable.size(), all.stream().mapToLong(Sent::millis).max().orElse(0), firstOkAfter);

                assertThat(all).as("every answer is a 200 or a 503").allSatisfy(s -> assertThat(s.status()).isIn(200, 503));
                assertThat(unavailable).as("turns ran into the outage").isNotEmpty();
                assertThat(unavailable).allSatisfy(s -> assertThat(s.detail()).contains("The memory store is unavailable")
                        .doesNotContain("Exception", "org.", "java.", "jdbc", "SQL"));
                assertThat(all).allSatisfy(s -> assertThat(Duration.ofMillis(s.millis())).isLessThan(REQUEST_BOUND));
                assertThat(allAnsweredAfter(sent, backAt + STORE_TIMEOUT.toMillis())).as("every client is served after the restart")
                        .isTrue();

                // Every acknowledged message is stored.
                for (int c = 0; c < CLIENTS; c++) {
                    Set<String> stored = store.messages().list(Scope.of("ana", agents.get(c)), MessageQuery.all()).stream()
                            .filter(m -> m.role() == MessageRole.USER).map(ConversationMessage::content).collect(Collectors.toSet());
                    int client = c;
                    assertThat(ok.stream().filter(s -> s.client() == client))
                            .allSatisfy(s -> assertThat(stored).as("client %d", client).anyMatch(m -> m.endsWith(" " + s.text())));
                }
            } finally {
                clients.shutdownNow();
                server.close();
                locks.close();
                search.close();
                store.close();
            }
        }
    }

    /** Whether every client has had a 2xx answer to a request sent after {@code millis}. */
    private static boolean allAnsweredAfter(ConcurrentLinkedQueue<Sent> sent, long millis) {
        return sent.stream().filter(s -> s.status() == 200 && s.startedAt() >= millis).map(Sent::client).distinct().count() == CLIENTS;
    }

    private static JsonNode post(HttpClient http, EngramServer server, String key, String path, Object body) throws Exception {
        HttpResponse<String> r = send(http, server, key, path, body);
        assertThat(r.statusCode()).as("POST %s: %s", path, r.body()).isEqualTo(200);
        return ServerFixture.JSON.readTree(r.body());
    }

    private static HttpResponse<String> send(HttpClient http, EngramServer server, String key, String path, Object body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(REQUEST_BOUND).header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ServerFixture.JSON.writeValueAsString(body))).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
