package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MemoryLimits;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/** Errors name the field and what it takes, are checked before the turn, and never carry Java's wording. */
class ErrorMessagesTest {
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

    private int storedMessages() {
        return fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all().withLimit(10_000)).size();
    }

    @Test
    void aMessageOverTheStoresLimitIs422NamingTheFieldAndTheLimitAndStartsNoTurn() {
        int before = storedMessages();
        String huge = "x".repeat(2_000_000);
        for (ServerFixture.Response r : List.of(
                fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage(huge)),
                fx.post(fx.ana, "/v1/agents/" + agent + "/messages/stream", fx.userMessage(huge)))) {
            assertThat(r.status()).as(r.text()).isEqualTo(422);
            assertThat(r.json().path("detail").path(0).path("loc").toString()).isEqualTo("[\"body\",\"messages\"]");
            assertThat(r.json().path("detail").path(0).path("msg").asString())
                    .contains("2000000 characters", String.valueOf(MemoryLimits.DEFAULT_MAX_TEXT_CHARS), "split it");
        }
        ServerFixture.Response input = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("input", huge));
        assertThat(input.status()).isEqualTo(422);
        assertThat(input.json().path("detail").path(0).path("loc").toString()).isEqualTo("[\"body\",\"input\"]");
        assertThat(storedMessages()).isEqualTo(before);
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("hello")).status()).isEqualTo(200);
    }

    @Test
    void aMessageLargerThanTheWholeContextWindowIs422BeforeTheTurn() {
        int before = storedMessages();
        String words = "the quick brown fox jumps over the lazy dog ".repeat(4_000);
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage(words));
        assertThat(r.status()).as(r.text()).isEqualTo(422);
        assertThat(r.json().path("detail").path(0).path("msg").asString())
                .contains("context window of 32768 tokens", "context_window_limit");
        assertThat(storedMessages()).isEqualTo(before);
    }

    @Test
    void anImportWithAnUnknownBlockTypeNamesTheFieldAndItsValuesAndStoresNothing() {
        String file = """
                {"agents": [{"name": "a", "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai"},
                  "memory_blocks": [{"label": "human", "value": "x", "metadata": {"engram_type": "nonsense"}}]}]}""";
        ServerFixture.Response r = upload(file);
        assertThat(r.status()).as(r.text()).isEqualTo(400);
        assertThat(r.detail()).contains("metadata.engram_type", "'nonsense'", "core").doesNotContain("No enum constant",
                "dev.engram", "Exception");
        String permission = file.replace("\"engram_type\": \"nonsense\"", "\"engram_permission\": \"NONSENSE\"");
        ServerFixture.Response p = upload(permission);
        assertThat(p.status()).as(p.text()).isEqualTo(400);
        assertThat(p.detail()).contains("metadata.engram_permission", "read_only", "read_write")
                .doesNotContain("No enum constant", "dev.engram");
        assertThat(fx.get(fx.ana, "/v1/agents/").json()).hasSize(1);
    }

    @Test
    void anUnknownMessageTypeNamesTheFieldAndTheTypesBeforeTheTurn() {
        int before = storedMessages();
        ObjectNode body = fx.userMessage("hello");
        body.set("include_return_message_types", ServerFixture.JSON.valueToTree(List.of("assistant_message", "nonsense")));
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", body);
        assertThat(r.status()).as(r.text()).isEqualTo(422);
        assertThat(r.json().path("detail").path(0).path("loc").toString())
                .isEqualTo("[\"body\",\"include_return_message_types\",\"1\"]");
        assertThat(r.json().path("detail").path(0).path("msg").asString()).contains("'nonsense'", "tool_call_message");
        assertThat(storedMessages()).isEqualTo(before);
        ServerFixture.Response list = fx.get(fx.ana, "/v1/agents/" + agent + "/messages?include_return_message_types=bogus");
        assertThat(list.status()).isEqualTo(422);
        assertThat(list.json().path("detail").path(0).path("msg").asString()).contains("'bogus'", "user_message");
    }

    @Test
    void aBodyNestedTooDeepIs422WithoutJacksonsApiNames() {
        String deep = "{\"a\": " + "[".repeat(5_000) + "]".repeat(5_000) + "}";
        ServerFixture.Response r = fx.post(fx.ana, "/v1/blocks/", deep);
        assertThat(r.status()).as(r.text()).isEqualTo(422);
        assertThat(r.text()).contains("JSON decode error").doesNotContain("StreamReadConstraints", "()");
        assertThat(fx.post(fx.ana, "/v1/blocks/", "{not json").json().path("detail").path(0).path("msg").asString())
                .startsWith("JSON decode error: Unexpected character");
    }

    private ServerFixture.Response upload(String content) {
        String boundary = "----engram" + UUID.randomUUID();
        String body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.af\"\r\n"
                + "Content-Type: application/json\r\n\r\n" + content + "\r\n--" + boundary + "--\r\n";
        return fx.send(HttpRequest.newBuilder(URI.create(fx.url("/v1/agents/import"))).header("Authorization", "Bearer " + fx.ana)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build());
    }

    @Test
    void javasWordingNeverReachesAClient() {
        assertThat(Incidents.presentable("No enum constant dev.engram.memory.MemoryPermission.NONSENSE")).isFalse();
        assertThat(Incidents.presentable("For input string: \"abc\"")).isFalse();
        assertThat(Incidents.presentable("Cannot invoke \"String.length()\" because \"s\" is null")).isFalse();
        assertThat(Incidents.presentable("java.lang.IllegalStateException: boom")).isFalse();
        assertThat(Incidents.presentable("Index 3 out of bounds for length 2")).isFalse();
        assertThat(Incidents.presentable(null)).isFalse();
        assertThat(Incidents.presentable("exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)"))
                .isFalse();
        assertThat(Incidents.presentable("Agent 'agent-1' not found.")).isTrue();
        assertThat(Incidents.presentable("\"metadata.engram_type\" is 'x'; it takes one of: core, archival")).isTrue();
        String text = Incidents.clientText(new IllegalArgumentException("No enum constant dev.engram.memory.BlockType.X"), "a test");
        assertThat(text).startsWith("The request has a value this server could not read (incident ").doesNotContain("enum");
    }
}
