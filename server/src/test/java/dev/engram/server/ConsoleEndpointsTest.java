package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** What the web console needs of the server: its files at {@code /}, the context window, search scores, pending approvals. */
class ConsoleEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
        agent = fx.agent(fx.ana, "helper");
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    @Test
    void theConsoleIsServedFromTheJarWithoutAKeyUnderAStrictPolicy() {
        ServerFixture.Response page = fx.get(null, "/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(page.text()).contains("<script type=\"module\" src=\"/console/main.js\"></script>").doesNotContain("<script>");
        String policy = page.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertThat(policy).startsWith("default-src 'self'").contains("script-src 'self';").contains("frame-ancestors 'none'")
                .doesNotContain("unsafe-inline").doesNotContain("http");
        assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-cache");

        ServerFixture.Response script = fx.get(null, "/console/api.js");
        assertThat(script.status()).isEqualTo(200);
        assertThat(script.headers().firstValue("Content-Type")).hasValue("text/javascript; charset=utf-8");
        assertThat(script.headers().firstValue("Content-Security-Policy")).hasValue(policy);
        assertThat(fx.get(null, "/console/console.css").headers().firstValue("Content-Type")).hasValue("text/css; charset=utf-8");
    }

    @Test
    void anUnchangedFileIsRevalidatedWithItsETag() {
        String etag = fx.get(null, "/console/main.js").headers().firstValue("ETag").orElseThrow();
        ServerFixture.Response again = fx.send(HttpRequest.newBuilder(URI.create(fx.url("/console/main.js")))
                .header("If-None-Match", etag).GET().build());
        assertThat(again.status()).isEqualTo(304);
        assertThat(again.text()).isEmpty();
        ServerFixture.Response other = fx.send(HttpRequest.newBuilder(URI.create(fx.url("/console/main.js")))
                .header("If-None-Match", "\"stale\"").GET().build());
        assertThat(other.status()).isEqualTo(200);
        assertThat(other.text()).contains("import");
    }

    @Test
    void onlyTheConsolesOwnFilesAreServed() {
        for (String path : List.of("/console/nope.js", "/console/..%2Fapplication.yaml", "/console/%2e%2e%2fMETA-INF",
                "/console/Main.JS", "/console/main.js.map", "/console/dev/engram/server/Api.class")) {
            ServerFixture.Response r = fx.get(null, path);
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(r.text()).as(path).startsWith("No console file").doesNotContain("import");
        }
        // the API stays behind its key
        assertThat(fx.get(null, "/v1/agents/").status()).isEqualTo(401);
    }

    @Test
    void theContextWindowIsBrokenIntoItsPartsAgainstTheLimit() {
        fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("hello there"));
        ServerFixture.Response r = fx.get(fx.ana, "/v1/agents/" + agent + "/context");
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        JsonNode c = r.json();
        assertThat(c.path("context_window_size_max").asInt()).isEqualTo(
                fx.get(fx.ana, "/v1/agents/" + agent).json().path("llm_config").path("context_window").asInt());
        assertThat(c.path("core_memory").asString()).startsWith("<memory_blocks>").contains("I am a helpful assistant.")
                .doesNotContain("<memory_statistics>");
        assertThat(c.path("system_prompt").asString()).isNotBlank().doesNotContain("<memory_blocks>");
        assertThat(c.path("external_memory_summary").asString()).startsWith("<memory_statistics>");
        assertThat(c.path("num_tokens_core_memory").asInt()).isPositive();
        assertThat(c.path("num_tokens_system").asInt()).isPositive();
        assertThat(c.path("num_tokens_functions_definitions").asInt()).isPositive();
        assertThat(c.path("functions_definitions")).extracting(f -> f.path("function").path("name").asString()).contains("send_message");
        assertThat(c.path("num_messages").asInt()).isGreaterThanOrEqualTo(2);
        assertThat(c.path("num_tokens_messages").asInt()).isPositive();
        assertThat(c.path("messages")).extracting(m -> m.path("message_type").asString()).contains("user_message");
        assertThat(c.path("summary_memory").isNull()).isTrue();
        int parts = c.path("num_tokens_system").asInt() + c.path("num_tokens_core_memory").asInt()
                + c.path("num_tokens_external_memory_summary").asInt() + c.path("num_tokens_functions_definitions").asInt()
                + c.path("num_tokens_messages").asInt();
        // the agent estimates its statistics (a token per 3 characters); every other part is counted the same way
        assertThat(Math.abs(c.path("context_window_size_current").asInt() - parts)).isLessThan(40);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/context/").status()).isEqualTo(200);
    }

    @Test
    void anotherUsersContextIsNotFound() {
        ServerFixture.Response r = fx.get(fx.ben, "/v1/agents/" + agent + "/context");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.text()).doesNotContain("memory_blocks");
        assertThat(fx.get(null, "/v1/agents/" + agent + "/context").status()).isEqualTo(401);
    }

    @Test
    void aSearchHitSaysItsScoreAndWhichRetrieversFoundIt() {
        fx.post(fx.ana, "/v1/agents/" + agent + "/archival-memory", obj("text", "Ana's cat is called Miso"));
        fx.post(fx.ana, "/v1/agents/" + agent + "/archival-memory", obj("text", "The office is in Lisbon"));
        JsonNode results = fx.get(fx.ana, "/v1/agents/" + agent + "/archival-memory/search?query=Miso").json().path("results");
        JsonNode top = results.get(0);
        assertThat(top.path("content").asString()).isEqualTo("Ana's cat is called Miso");
        assertThat(top.path("score").asDouble()).isPositive();
        assertThat(top.path("retrievers").path("bm25").path("rank").asInt()).isEqualTo(1);
        assertThat(top.path("retrievers").path("bm25").path("score").asDouble()).isPositive();
        assertThat(top.path("retrievers").path("vector").path("rank").asInt()).isPositive();
        // a hit BM25 did not find has no bm25 part
        for (JsonNode hit : results) {
            if (!hit.path("content").asString().contains("Miso")) {
                assertThat(hit.path("retrievers").has("bm25")).isFalse();
                assertThat(hit.path("retrievers").has("vector")).isTrue();
            }
        }
    }

    @Test
    void theNotesOfTheAgentsUserAreListedAndSearchedWithScores() {
        fx.store.notes().save("ana", "Ana prefers tea to coffee");
        fx.store.notes().save("ana", "Ana's sister lives in Porto");
        fx.store.notes().save("ben", "Ben's secret note about tea");
        JsonNode list = fx.get(fx.ana, "/v1/agents/" + agent + "/notes").json();
        assertThat(list).extracting(n -> n.path("content").asString())
                .containsExactlyInAnyOrder("Ana prefers tea to coffee", "Ana's sister lives in Porto");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/notes?limit=1").json()).hasSize(1);
        JsonNode hits = fx.get(fx.ana, "/v1/agents/" + agent + "/notes/search?query=tea").json().path("results");
        assertThat(hits.get(0).path("content").asString()).isEqualTo("Ana prefers tea to coffee");
        assertThat(hits.get(0).path("retrievers").path("bm25").path("rank").asInt()).isEqualTo(1);
        assertThat(hits.toString()).doesNotContain("Ben's secret");

        ServerFixture.Response missing = fx.get(fx.ana, "/v1/agents/" + agent + "/notes/search");
        assertThat(missing.status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/notes?limit=0").status()).isEqualTo(422);
        assertThat(fx.get(fx.ben, "/v1/agents/" + agent + "/notes").status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/agents/" + agent + "/notes/search?query=tea").status()).isEqualTo(404);
        assertThat(fx.store.notes().count("ana")).isEqualTo(2);
    }

    @Test
    void aCallWaitingForApprovalIsTheAgentsPendingApproval() {
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent).json().path("pending_approval").isNull()).isTrue();
        fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/approval/block?requires_approval=true", null);
        String call = "call {\"name\": \"block\", \"arguments\": {\"operation\": \"append\", \"label\": \"human\", \"text\": \"Ana\"}}";
        ServerFixture.Response paused = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("input", call));
        assertThat(paused.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("requires_approval");
        JsonNode pending = fx.get(fx.ana, "/v1/agents/" + agent).json().path("pending_approval");
        assertThat(pending.path("message_type").asString()).isEqualTo("approval_request_message");
        assertThat(pending.path("tool_call").path("name").asString()).isEqualTo("block");
        assertThat(pending.path("tool_call").path("arguments").asString()).contains("\"Ana\"");
        String callId = pending.path("tool_call").path("tool_call_id").asString();
        assertThat(fx.get(fx.ana, "/v1/agents/").json().get(0).path("pending_approval").path("tool_call")
                .path("tool_call_id").asString()).isEqualTo(callId);

        ServerFixture.Response done = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("messages", List.of(
                obj("type", "approval", "approvals", List.of(obj("type", "approval", "tool_call_id", callId, "approve", false))))));
        assertThat(done.status()).as(done.text()).isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent).json().path("pending_approval").isNull()).isTrue();
    }
}
