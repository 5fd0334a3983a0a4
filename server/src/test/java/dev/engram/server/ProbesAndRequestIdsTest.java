package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.MDC;

/**
 * Liveness and readiness as Kubernetes means them (readiness false while starting, while stopping, and while the store
 * cannot be read; liveness true throughout), and request ids: taken from a sane {@code X-Request-Id} or made, echoed,
 * in every error body, and in the log's context on every thread that works for the request.
 */
class ProbesAndRequestIdsTest {
    @TempDir
    Path dir;
    ServerFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void readinessFollowsTheServersLifeWhileLivenessStaysUp() throws Exception {
        fx = new ServerFixture(dir);
        OpsRoutes ops = new OpsRoutes(fx.store, new Metrics(), CompletableFuture.completedFuture(null));
        HttpRouting.Builder routing = HttpRouting.builder();
        Route.register(routing, ops.probes());
        WebServer web = WebServer.builder().host("127.0.0.1").port(0).routing(routing).build().start();
        try {
            String base = "http://127.0.0.1:" + web.port();
            ServerFixture.Response starting = send(base + "/readyz", null);
            assertThat(starting.status()).isEqualTo(503);
            assertThat(starting.json().path("status").asString()).isEqualTo("starting");
            assertThat(send(base + "/livez", null).status()).isEqualTo(200);
            ops.started();
            assertThat(send(base + "/readyz", null).json().path("status").asString()).isEqualTo("ready");
            ops.stopping();
            ServerFixture.Response stopping = send(base + "/readyz", null);
            assertThat(stopping.status()).isEqualTo(503);
            assertThat(stopping.json().path("status").asString()).isEqualTo("stopping");
            assertThat(send(base + "/livez", null).status()).isEqualTo(200);
        } finally {
            web.stop();
        }
    }

    @Test
    void aServerIsReadyOnceStartedAndNotReadyFromTheMomentItStops() throws Exception {
        // a model that does not stop when its turn is cancelled, so that closing takes a while
        CountDownLatch release = new CountDownLatch(1);
        ChatModel stubborn = new ChatModel() {
            @Override
            public String name() {
                return "stubborn";
            }

            @Override
            public ChatResponse chat(ChatRequest request) {
                // holds its turn (ignoring the cancel) until the test has probed the stopping server
                long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (release.getCount() > 0 && System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                return new ChatResponse(new ChatMessage.Assistant("done", List.of()), ChatResponse.Usage.NONE,
                        ChatResponse.StopReason.END_TURN);
            }
        };
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", new EchoModel()).model("test:stubborn", stubborn)));
        assertThat(fx.get(null, "/readyz").status()).isEqualTo(200);
        assertThat(fx.get(null, "/livez").json().path("status").asString()).isEqualTo("alive");
        String agent = fx.post(fx.ana, "/v1/agents/", ServerFixture.obj("name", "slow", "model", "test:stubborn")).json()
                .path("id").asString();
        CompletableFuture<ServerFixture.Response> turn = CompletableFuture.supplyAsync(
                () -> fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("hello")));
        waitFor(() -> fx.server.runtime().current("ana", agent).isBusy());
        CompletableFuture<Void> closing = CompletableFuture.runAsync(fx.server::close);
        // close() runs on another thread: the probe turns 503 once it has begun, while the turn still holds it open
        waitFor(() -> fx.get(null, "/readyz").status() != 200);
        ServerFixture.Response during = fx.get(null, "/readyz");
        assertThat(during.status()).as(during.text()).isEqualTo(503);
        assertThat(during.json().path("status").asString()).isEqualTo("stopping");
        release.countDown();
        closing.get(30, TimeUnit.SECONDS);
        turn.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aServerWarmingUpAfterReadyIsReadyAtOnceAnswersRequestsAndSaysWhenItIsWarm() throws Exception {
        for (boolean fails : List.of(false, true)) {
            CompletableFuture<Void> warming = new CompletableFuture<>();
            fx = new ServerFixture(Files.createDirectories(dir.resolve(fails ? "cold-failing" : "cold")),
                    b -> b.warmUpAfterReady(warming));
            ServerFixture.Response cold = fx.get(null, "/readyz");
            assertThat(cold.status()).as(cold.text()).isEqualTo(200);
            assertThat(cold.json().path("status").asString()).isEqualTo("ready");
            assertThat(cold.json().path("warm").asBoolean(true)).as(cold.text()).isFalse();
            // a request while it warms is answered correctly: an agent created, its memory searched
            ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", "{\"name\": \"helper\"}");
            assertThat(created.status()).as(created.text()).isEqualTo(200);
            String agent = created.json().path("id").asString();
            assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/archival-memory", "{\"text\": \"Maya studies octopus\"}")
                    .status()).isEqualTo(200);
            ServerFixture.Response found = fx.get(fx.ana, "/v1/agents/" + agent + "/archival-memory/search?query=octopus");
            assertThat(found.json().path("count").asInt()).as(found.text()).isEqualTo(1);
            if (fails) {
                warming.completeExceptionally(new IllegalStateException("the embedding model cannot be opened"));
            } else {
                warming.complete(null);
            }
            ServerFixture.Response warm = fx.get(null, "/readyz");
            assertThat(warm.status()).as(warm.text()).isEqualTo(200);
            assertThat(warm.json().path("warm").asBoolean(false)).as(warm.text()).isTrue();
            fx.close();
            fx = null;
        }
    }

    @Test
    void aServerWarmingUpAnswersEveryRequestButIsReadyOnlyOnceTheWarmUpEndsEvenIfItFailed() throws Exception {
        for (boolean fails : List.of(false, true)) {
            CompletableFuture<Void> warmUp = new CompletableFuture<>();
            fx = new ServerFixture(Files.createDirectories(dir.resolve(fails ? "failing" : "succeeding")),
                    b -> b.readyAfter(warmUp));
            ServerFixture.Response warming = fx.get(null, "/readyz");
            assertThat(warming.status()).isEqualTo(503);
            assertThat(warming.json().path("status").asString()).isEqualTo("starting");
            assertThat(warming.json().path("reasons").path(0).asString()).contains("warming up");
            assertThat(fx.get(null, "/v1/health/").status()).isEqualTo(200);
            assertThat(fx.get(null, "/livez").status()).isEqualTo(200);
            assertThat(fx.get(fx.ana, "/v1/agents/").status()).as("the API answers while it warms up").isEqualTo(200);
            if (fails) {
                warmUp.completeExceptionally(new IllegalStateException("the embedding model cannot be opened"));
            } else {
                warmUp.complete(null);
            }
            ServerFixture.Response ready = fx.get(null, "/readyz");
            assertThat(ready.status()).as(ready.text()).isEqualTo(200);
            assertThat(ready.json().path("status").asString()).isEqualTo("ready");
            fx.close();
            fx = null;
        }
    }

    @Test
    void aStoreThatCannotBeReadMakesTheServerNotReadyButAlive() {
        fx = new ServerFixture(dir);
        fx.store.close();
        ServerFixture.Response ready = fx.get(null, "/readyz");
        assertThat(ready.status()).isEqualTo(503);
        assertThat(ready.json().path("status").asString()).isEqualTo("unavailable");
        assertThat(ready.json().path("reasons").path(0).asString()).isEqualTo("the memory store cannot be read");
        assertThat(fx.get(null, "/livez").status()).isEqualTo(200);
    }

    @Test
    void everyRequestGetsAnIdEchoedAndCarriedByItsErrors() {
        fx = new ServerFixture(dir);
        ServerFixture.Response ok = fx.get(fx.ana, "/v1/agents/");
        String made = ok.headers().firstValue("X-Request-Id").orElseThrow();
        assertThat(made).matches("[0-9a-f]{32}");
        assertThat(fx.get(fx.ana, "/v1/agents/").headers().firstValue("X-Request-Id")).isNotEqualTo(java.util.Optional.of(made));

        ServerFixture.Response mine = withId("GET", "/v1/agents/agent-nobody", fx.ana, "client-req.42:a_b-c");
        assertThat(mine.status()).isEqualTo(404);
        assertThat(mine.headers().firstValue("X-Request-Id")).contains("client-req.42:a_b-c");
        assertThat(mine.json().path("request_id").asString()).isEqualTo("client-req.42:a_b-c");
        assertThat(mine.detail()).contains("not found");

        for (String insane : List.of("has spaces", "x".repeat(65), "semi;colon", "")) {
            ServerFixture.Response r = withId("GET", "/v1/agents/", null, insane);
            assertThat(r.status()).isEqualTo(401);
            String id = r.headers().firstValue("X-Request-Id").orElseThrow();
            assertThat(id).as("for %s", insane).matches("[0-9a-f]{32}");
            assertThat(r.json().path("request_id").asString()).isEqualTo(id);
        }
        ServerFixture.Response invalid = fx.post(fx.ana, "/v1/agents/", "{not json");
        assertThat(invalid.status()).isBetween(400, 422);
        assertThat(invalid.json().path("request_id").asString()).isEqualTo(invalid.headers().firstValue("X-Request-Id").orElseThrow());
        ServerFixture.Response unsupported = fx.get(fx.ana, "/v1/templates/");
        assertThat(unsupported.status()).isEqualTo(501);
        assertThat(unsupported.json().path("request_id").asString()).isNotBlank();
    }

    @Test
    void theRequestIdIsInTheLogContextOnEveryThreadThatRunsATurn() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", new EchoModel())
                .listener(e -> seen.add(e.getClass().getSimpleName() + "=" + MDC.get(RequestIds.MDC_KEY)))));
        String agent = fx.agent(fx.ana, "traced");
        // on the request's own thread
        withId("POST", "/v1/agents/" + agent + "/messages", fx.ana, "inline-1", fx.userMessage("hello"));
        // streamed: on a turn thread of the server's
        ServerFixture.Response streamed = withId("POST", "/v1/agents/" + agent + "/messages/stream", fx.ana, "stream-2",
                fx.userMessage("hello again"));
        assertThat(streamed.status()).isEqualTo(200);
        // a turn that may ask for approval: on a virtual thread of its own
        fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/approval/block?requires_approval=true", null);
        withId("POST", "/v1/agents/" + agent + "/messages", fx.ana, "approval-3", fx.userMessage("and again"));
        assertThat(seen).contains("StepStarted=inline-1", "StepStarted=stream-2", "StepStarted=approval-3")
                .noneMatch(s -> s.endsWith("=null"));
        assertThat(MDC.get(RequestIds.MDC_KEY)).isNull();
    }

    private ServerFixture.Response withId(String method, String path, String key, String id) {
        return withId(method, path, key, id, null);
    }

    private ServerFixture.Response withId(String method, String path, String key, String id, Object body) {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(fx.url(path))).timeout(Duration.ofSeconds(60));
        if (key != null) {
            req.header("Authorization", "Bearer " + key);
        }
        if (!id.isEmpty()) {
            req.header("X-Request-Id", id);
        }
        String text = body == null ? null : ServerFixture.JSON.writeValueAsString(body);
        if (text != null) {
            req.header("Content-Type", "application/json");
        }
        req.method(method, text == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(text));
        return fx.send(req.build());
    }

    private ServerFixture.Response send(String url, String key) {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url));
        if (key != null) {
            req.header("Authorization", "Bearer " + key);
        }
        return fx.send(req.build());
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 20 s");
            }
            Thread.sleep(10);
        }
    }
}
