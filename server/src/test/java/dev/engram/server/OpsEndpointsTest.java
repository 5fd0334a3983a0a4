package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} (admin keys only; on the server's port, or on a management port), and what the meters count after
 * real turns, tool calls, approvals and searches.
 */
class OpsEndpointsTest {
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
    void metricsAreReadWithAnAdminKeyOnlyAndCountTurnsModelsToolsSearchesAndRequests() {
        fx = new ServerFixture(dir);
        String agent = fx.agent(fx.ana, "metered");
        String call = "call {\"name\": \"block\", \"arguments\": {\"operation\": \"append\", \"label\": \"human\", \"text\": \"Ana\"}}";
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage(call)).status()).isEqualTo(200);
        fx.post(fx.ana, "/v1/agents/" + agent + "/archival-memory", obj("text", "Ana likes tea"));
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/archival-memory/search?query=tea").status()).isEqualTo(200);
        // a call that waits for approval: a pending approval while it waits
        fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/approval/block?requires_approval=true", null);
        ServerFixture.Response paused = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage(call));
        assertThat(paused.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("requires_approval");

        ServerFixture.Response none = fx.get(null, "/metrics");
        ServerFixture.Response wrong = fx.get("sk-engram-not-a-key", "/metrics");
        ServerFixture.Response user = fx.get(fx.ana, "/metrics");
        assertThat(none.status()).isEqualTo(401);
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(user.status()).isEqualTo(403);
        assertThat(user.detail()).contains("admin key");
        assertThat(user.text()).doesNotContain("engram_");

        ServerFixture.Response admin = fx.get(fx.admin, "/metrics");
        assertThat(admin.status()).isEqualTo(200);
        assertThat(admin.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        String text = admin.text();
        assertThat(value(text, "engram_turns_seconds_count", "outcome=\"no_tool_call\"")
                + value(text, "engram_turns_seconds_count", "outcome=\"yielded\"")
                + value(text, "engram_turns_seconds_count", "outcome=\"end_turn\"")).isGreaterThanOrEqualTo(1);
        assertThat(value(text, "engram_steps_seconds_count", "")).isGreaterThanOrEqualTo(2);
        assertThat(value(text, "engram_model_calls_seconds_count", "model=\"test:echo\"")).isGreaterThanOrEqualTo(2);
        assertThat(value(text, "engram_model_tokens_total", "direction=\"input\",model=\"test:echo\"")).isGreaterThanOrEqualTo(20);
        assertThat(value(text, "engram_model_tokens_total", "direction=\"output\",model=\"test:echo\"")).isGreaterThanOrEqualTo(10);
        assertThat(value(text, "engram_tool_calls_seconds_count", "status=\"success\",tool=\"block\"")).isEqualTo(1);
        assertThat(value(text, "engram_search_seconds_count", "outcome=\"ok\"")).isGreaterThanOrEqualTo(1);
        assertThat(value(text, "engram_approvals_pending", "")).isEqualTo(1);
        assertThat(value(text, "engram_turns_waiting", "")).isZero();
        assertThat(value(text, "engram_turns_running", "")).isEqualTo(1);
        assertThat(value(text, "engram_index_lag", "")).isNotNaN().isGreaterThanOrEqualTo(0);
        assertThat(value(text, "engram_http_requests_seconds_count", "method=\"POST\",status=\"2xx\",user=\"ana\""))
                .isGreaterThanOrEqualTo(3);
        assertThat(value(text, "engram_http_requests_seconds_count", "method=\"GET\",status=\"4xx\",user=\"_anonymous\""))
                .isGreaterThanOrEqualTo(2);
        assertThat(value(text, "engram_http_requests_seconds_count", "method=\"GET\",status=\"4xx\",user=\"ana\""))
                .isEqualTo(1);
    }

    @Test
    void aTurnWaitingForItsAgentIsCountedUntilItRuns() throws Exception {
        fx = new ServerFixture(dir);
        String agent = fx.agent(fx.ana, "busy");
        String messages = "/v1/agents/" + agent + "/messages";
        CompletableFuture<ServerFixture.Response> first = CompletableFuture.supplyAsync(
                () -> fx.post(fx.ana, messages, fx.userMessage("sleep 4000 one")));
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!fx.server.runtime().current("ana", agent).isBusy() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        CompletableFuture<ServerFixture.Response> second = CompletableFuture.supplyAsync(
                () -> fx.post(fx.ana, messages, fx.userMessage("two")));
        double waiting = 0;
        while (waiting < 1 && System.nanoTime() < deadline && !first.isDone()) {
            waiting = value(fx.get(fx.admin, "/metrics").text(), "engram_turns_waiting", "");
            Thread.sleep(20);
        }
        assertThat(waiting).isEqualTo(1);
        assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(second.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(value(fx.get(fx.admin, "/metrics").text(), "engram_turns_waiting", "")).isZero();
    }

    @Test
    void onAManagementPortTheMetricsLeaveTheServersPort() {
        fx = new ServerFixture(dir, b -> b.managementPort(0));
        int management = fx.server.managementPort().orElseThrow();
        assertThat(management).isNotEqualTo(fx.server.port());
        ServerFixture.Response notHere = fx.get(fx.admin, "/metrics");
        assertThat(notHere.status()).isEqualTo(404);
        assertThat(notHere.json().path("request_id").asString()).isNotBlank();
        String base = "http://127.0.0.1:" + management;
        assertThat(send(base + "/metrics", null).status()).isEqualTo(401);
        assertThat(send(base + "/metrics", fx.ana).status()).isEqualTo(403);
        ServerFixture.Response admin = send(base + "/metrics", fx.admin);
        assertThat(admin.status()).isEqualTo(200);
        assertThat(admin.text()).contains("engram_turns_waiting");
        // the API is not served there, and the probes are on both ports
        assertThat(send(base + "/v1/agents/", fx.admin).status()).isEqualTo(404);
        assertThat(send(base + "/readyz", null).status()).isEqualTo(200);
        assertThat(send(base + "/livez", null).status()).isEqualTo(200);
        assertThat(fx.get(null, "/readyz").status()).isEqualTo(200);
    }

    @Test
    void onTheServersPortByDefault() {
        fx = new ServerFixture(dir);
        assertThat(fx.server.managementPort()).isEmpty();
        ServerFixture.Response admin = fx.get(fx.admin, "/metrics");
        assertThat(admin.status()).isEqualTo(200);
        // nothing has used the index yet (engram serve opens it on the first search): its lag is not known
        assertThat(value(admin.text(), "engram_index_lag", "")).isNaN();
    }

    @Test
    void aManagementPortOutOfRangeIsRefusedAtOnce() {
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));
             MemorySearch search = MemorySearch.luceneInMemory(store, ServerFixture.sharedEmbedder())) {
            EngramServer.Builder b = EngramServer.builder(store, search);
            assertThatThrownBy(() -> b.managementPort(70_000)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("management port must be between 0 and 65535");
            assertThatThrownBy(() -> b.managementPort(-1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> b.port(18_283).managementPort(18_283).start()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must differ from the server's port");
        }
    }

    @Test
    void userTagsAreBoundedSoThatManyUsersCannotGrowTheScrape() {
        Metrics.Bounded users = new Metrics.Bounded(2);
        assertThat(List.of(users.of("ana"), users.of("ben"), users.of("cy"), users.of("ana"), users.of("dee")))
                .containsExactly("ana", "ben", Metrics.OTHER, "ana", Metrics.OTHER);
    }

    private ServerFixture.Response send(String url, String key) {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url));
        if (key != null) {
            req.header("Authorization", "Bearer " + key);
        }
        return fx.send(req.build());
    }

    /** The value of a sample of {@code metric} whose labels contain {@code labels}; 0 when there is none. */
    static double value(String scrape, String metric, String labels) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(metric) + "(\\{([^}]*)})? (\\S+)$").matcher(scrape);
        double sum = 0;
        while (m.find()) {
            String have = m.group(2) == null ? "" : m.group(2);
            if (have.contains(labels)) {
                sum += Double.parseDouble(m.group(3));
            }
        }
        return sum;
    }
}
