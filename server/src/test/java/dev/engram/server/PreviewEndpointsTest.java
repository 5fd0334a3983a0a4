package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.engram.framework.model.ChatModel;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code preview-raw-payload} of an agent and of a conversation: the body the agent's OpenAI-compatible model would
 * post, equal to what a 127.0.0.1 provider then receives when the message is really sent; a preview stores nothing and
 * calls nothing; bad input is refused; another user's key gets 404.
 */
class PreviewEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    HttpServer provider;
    final List<JsonNode> received = new CopyOnWriteArrayList<>();
    String agent;

    @BeforeEach
    void start() throws IOException {
        provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        provider.createContext("/", ex -> {
            received.add(ServerFixture.JSON.readTree(ex.getRequestBody().readAllBytes()));
            byte[] answer = ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
                    + "{\"role\":\"assistant\",\"content\":\"Hello from the wire.\"},\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":4}}").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, answer.length);
            ex.getResponseBody().write(answer);
            ex.close();
        });
        provider.start();
        String spec = "http://127.0.0.1:" + provider.getAddress().getPort() + "/v1#gpt-wire";
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:wire", ChatModel.of(spec, Map.of()))
                .model("test:echo", new EchoModel())));
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "wired", "model", "test:wire",
                "memory_blocks", List.of(obj("label", "human", "value", "Ana likes tea."))));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        agent = created.json().path("id").asString();
    }

    @AfterEach
    void stop() {
        fx.close();
        provider.stop(0);
    }

    private long stored() {
        return fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all().withLimit(10_000)).size();
    }

    /** The body without the one line of the system prompt that shows the clock (the time of the last message). */
    private static JsonNode withoutClock(JsonNode body) {
        ObjectNode copy = (ObjectNode) body.deepCopy();
        ObjectNode system = (ObjectNode) copy.path("messages").path(0);
        system.put("content", system.path("content").asString().replaceAll("- Last message: [^\\n]*", "- Last message: -"));
        return copy;
    }

    @Test
    void theAgentsPreviewIsTheBodyItsProviderThenReceives() {
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("first")).status()).isEqualTo(200);
        long before = stored();
        int calls = received.size();

        ServerFixture.Response preview = fx.post(fx.ana, "/v1/agents/" + agent + "/messages/preview-raw-payload",
                fx.userMessage("second"));

        assertThat(preview.status()).as(preview.text()).isEqualTo(200);
        assertThat(received).as("no model call").hasSize(calls);
        assertThat(stored()).as("nothing stored").isEqualTo(before);
        JsonNode body = preview.json();
        assertThat(body.path("model").asString()).isEqualTo("gpt-wire");
        assertThat(body.path("messages").path(0).path("content").asString()).contains("Ana likes tea.");
        assertThat(body.path("messages").path(preview.json().path("messages").size() - 1).path("content").asString()).isEqualTo("second");
        assertThat(body.path("tools").size()).isPositive();
        assertThat(body.has("stream")).isFalse();

        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("second")).status()).isEqualTo(200);
        assertThat(withoutClock(received.get(calls))).isEqualTo(withoutClock(body));

        ServerFixture.Response streamed = fx.post(fx.ana, "/v1/agents/" + agent + "/messages/preview-raw-payload",
                obj("messages", List.of(obj("role", "user", "content", "third")), "streaming", true));
        assertThat(streamed.status()).isEqualTo(200);
        assertThat(streamed.json().path("stream").asBoolean()).isTrue();
    }

    @Test
    void aConversationsPreviewShowsItsOwnMessagesAndStreamsByDefault() {
        String conversation = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj()).json().path("id").asString();
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("in the default history"))
                .status()).isEqualTo(200);
        ServerFixture.Response preview = fx.post(fx.ana, "/v1/conversations/" + conversation + "/messages/preview-raw-payload",
                obj("messages", List.of(obj("role", "user", "content", "hello conversation"))));
        assertThat(preview.status()).as(preview.text()).isEqualTo(200);
        assertThat(preview.json().path("stream").asBoolean()).isTrue();
        List<String> texts = preview.json().path("messages").valueStream().map(m -> m.path("content").asString("")).toList();
        assertThat(texts.getLast()).isEqualTo("hello conversation");
        assertThat(texts).noneMatch(t -> t.equals("in the default history"));
        ServerFixture.Response own = fx.post(fx.ana, "/v1/conversations/default/messages/preview-raw-payload",
                obj("agent_id", agent, "streaming", false, "messages", List.of(obj("role", "user", "content", "again"))));
        assertThat(own.status()).as(own.text()).isEqualTo(200);
        assertThat(own.json().path("messages").valueStream().map(m -> m.path("content").asString("")).toList())
                .contains("in the default history");
    }

    @Test
    void aModelWithoutAWireFormatOfItsOwnIsShownInOpenAisFormat() {
        String echo = fx.agent(fx.ana, "echoer");
        ServerFixture.Response preview = fx.post(fx.ana, "/v1/agents/" + echo + "/messages/preview-raw-payload",
                fx.userMessage("hi"));
        assertThat(preview.status()).as(preview.text()).isEqualTo(200);
        assertThat(preview.json().path("messages").path(preview.json().path("messages").size() - 1).path("content").asString()).isEqualTo("hi");
        assertThat(preview.json().path("messages").path(0).path("role").asString()).isEqualTo("system");
    }

    @Test
    void badInputIsRefusedAndNothingIsStoredOrSent() {
        long before = stored();
        String path = "/v1/agents/" + agent + "/messages/preview-raw-payload";
        assertThat(fx.post(fx.ana, path, obj("messages", List.of())).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, path, obj()).status()).isEqualTo(422);
        ServerFixture.Response model = fx.post(fx.ana, path, obj("messages", List.of(obj("role", "user", "content", "x")),
                "override_model", "openai/gpt-4o"));
        assertThat(model.status()).isEqualTo(422);
        assertThat(model.text()).contains("override_model");
        ServerFixture.Response approval = fx.post(fx.ana, path, obj("messages", List.of(obj("type", "approval",
                "approve", true, "approval_request_id", "approval-call-1"))));
        assertThat(approval.status()).isEqualTo(422);
        assertThat(approval.text()).contains("approval");
        assertThat(fx.post(fx.ana, "/v1/conversations/default/messages/preview-raw-payload",
                fx.userMessage("no agent named")).status()).isEqualTo(422);
        assertThat(stored()).isEqualTo(before);
        assertThat(received).isEmpty();
    }

    @Test
    void anotherUsersKeyGetsNotFound() {
        String conversation = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj()).json().path("id").asString();
        for (String path : List.of("/v1/agents/" + agent + "/messages/preview-raw-payload",
                "/v1/conversations/" + conversation + "/messages/preview-raw-payload",
                "/v1/conversations/default/messages/preview-raw-payload?agent_id=" + agent)) {
            ServerFixture.Response r = fx.post(fx.ben, path, fx.userMessage("hi"));
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(r.text()).doesNotContain("tea");
        }
        assertThat(received).isEmpty();
    }
}
