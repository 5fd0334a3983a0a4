package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ManualClock;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Schedule;
import dev.engram.memory.ScheduleLimits;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code engram serve} delivers scheduled messages: two servers on one PostgreSQL database, each running its scheduler,
 * deliver every due firing exactly once, as a turn in the session the API's messages go to; a user's firings beyond
 * the scheduled-turn budget are skipped. Time is a clock the test moves. Skipped, with a message, when no PostgreSQL
 * server binaries are installed.
 */
class ScheduledDeliveryServerTest {
    private static final Instant T0 = Instant.parse("2026-11-25T08:00:00Z");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static PostgresServer postgres;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);

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

    /** One server over the shared database, on the test's clock, looking for due schedules every 20 ms. */
    private record Instance(MemoryStore store, MemorySearch search, PostgresLocks locks, EngramServer server) implements AutoCloseable {
        static Instance start(String url, Path index, ManualClock clock, ScheduleLimits limits) {
            MemoryStore store = MemoryStore.over(PostgresBackend.open(url, "postgres", ""), clock);
            MemorySearch search = LuceneMemorySearch.builder(store, ServerFixture.sharedEmbedder()).directory(index).build();
            PostgresLocks locks = PostgresLocks.open(url, "postgres", "", 16);
            EngramServer server = EngramServer.builder(store, search)
                    .runtime(rt -> rt.model("test:echo", new EchoModel()).scheduleLimits(limits))
                    .defaultModel("test:echo").port(0).turnLock(TurnLock.byName(locks::acquire))
                    .scheduleInterval(Duration.ofMillis(20)).start();
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

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static List<String> scheduledTurns(MemoryStore store, Scope scope) {
        return store.messages().list(scope, MessageQuery.all().withLimit(10_000)).stream()
                .filter(m -> m.role() == MessageRole.USER && m.content().startsWith("[Scheduled message "))
                .map(m -> m.content()).toList();
    }

    @Test
    void twoServersOnOneDatabaseDeliverEachDueFiringExactlyOnce() throws Exception {
        String url = postgres.jdbcUrl(postgres.newSchema());
        List<String> agents = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        Instance a = Instance.start(url, dir.resolve("index-a"), clock, ScheduleLimits.defaults());
        Instance b = Instance.start(url, dir.resolve("index-b"), clock, ScheduleLimits.defaults());
        MemoryStore store = a.store();
        try (a; b) {
            String key = store.keys().create(Optional.of("ana"), "ana").secret();
            for (int i = 0; i < 4; i++) {
                agents.add(post(a, key, "/v1/agents/", obj("name", "helper-" + i)).path("id").asString());
            }
            for (String agent : agents) {
                for (int j = 1; j <= 3; j++) {
                    Instance through = j % 2 == 0 ? a : b;
                    ids.add(post(through, key, "/v1/agents/" + agent + "/schedule", obj("messages",
                            List.of(obj("role", "user", "content", "reminder " + j + " for " + agent)), "schedule",
                            Map.of("type", "one-time", "scheduled_at", T0.plus(Duration.ofMinutes(10 * j)).toEpochMilli())))
                            .path("id").asString());
                }
            }
            assertThat(scheduledTurns(store, Scope.of("ana", agents.getFirst()))).as("nothing is due yet").isEmpty();

            clock.advance(Duration.ofMinutes(45));
            await("every firing to be delivered", () -> ids.stream()
                    .allMatch(id -> store.schedules().get("ana", id).orElseThrow().status() == Schedule.Status.DONE));
        }
        // Both servers are closed: nothing is delivering any more.
        try (MemoryStore after = MemoryStore.over(PostgresBackend.open(url, "postgres", ""), clock)) {
            for (String id : ids) {
                assertThat(after.schedules().get("ana", id).orElseThrow().runs()).as("firings of " + id).isEqualTo(1);
            }
            for (String agent : agents) {
                List<String> turns = scheduledTurns(after, Scope.of("ana", agent));
                assertThat(turns).as("the scheduled turns of " + agent).hasSize(3);
                for (int j = 1; j <= 3; j++) {
                    String text = "reminder " + j + " for " + agent;
                    assertThat(turns.stream().filter(t -> t.endsWith("\n" + text))).as(text).hasSize(1);
                }
                assertThat(after.messages().list(Scope.of("ana", agent), MessageQuery.all().withLimit(10_000)).stream()
                        .filter(m -> m.toolCalls().stream().anyMatch(c -> c.arguments().contains("You said: [Scheduled message"))))
                        .as("the agent answered each").hasSize(3);
            }
        }
    }

    @Test
    void aUsersScheduledTurnsBeyondTheBudgetAreSkipped() throws Exception {
        String url = postgres.jdbcUrl(postgres.newSchema());
        try (Instance a = Instance.start(url, dir.resolve("index"), clock, ScheduleLimits.defaults().withFirings(2, 10))) {
            String key = a.store().keys().create(Optional.of("ana"), "ana").secret();
            String agent = post(a, key, "/v1/agents/", obj("name", "helper")).path("id").asString();
            List<String> ids = new ArrayList<>();
            for (int j = 1; j <= 3; j++) {
                ids.add(post(a, key, "/v1/agents/" + agent + "/schedule", obj("messages", List.of(obj("role", "user",
                        "content", "reminder " + j)), "schedule", Map.of("type", "one-time", "scheduled_at",
                        T0.plus(Duration.ofMinutes(j)).toEpochMilli()))).path("id").asString());
            }
            clock.advance(Duration.ofMinutes(5));
            await("every firing to be done", () -> ids.stream()
                    .allMatch(id -> a.store().schedules().get("ana", id).orElseThrow().status() == Schedule.Status.DONE));
            assertThat(scheduledTurns(a.store(), Scope.of("ana", agent))).as("two turns an hour").hasSize(2);
        }
    }

    private static JsonNode post(Instance through, String key, String path, Object body) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create(through.url(path)))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(ServerFixture.JSON.writeValueAsString(body))).build();
        HttpResponse<String> r = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("POST %s: %s", path, r.body()).isIn(200, 201);
        return ServerFixture.JSON.readTree(r.body());
    }
}
