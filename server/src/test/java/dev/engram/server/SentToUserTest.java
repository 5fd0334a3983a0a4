package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The user sees as the agent's words ({@code assistant_message}) only a message that reached the user; a
 * {@code send_message} refused by a tool rule or sent to another agent is a tool call and its return, in the answer,
 * the stream and the stored history; and a turn's {@code stop_reason} says why it stopped.
 */
class SentToUserTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;
    ServerFixture fx;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private static List<String> types(JsonNode messages) {
        return messages.valueStream().map(m -> m.path("message_type").asString()).toList();
    }

    /** An agent whose send_message may run only right after block: every reply it tries is refused. */
    private String refusingAgent() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", obj("name", "strict", "tool_rules", List.of(
                obj("type", "parent_last_tool", "tool_name", "block", "children", List.of("send_message")))));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("id").asString();
    }

    @Test
    void aSendMessageRefusedByAToolRuleIsAToolCallWithItsRefusalEverywhere() {
        String agent = refusingAgent();

        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("hello"));

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        JsonNode messages = r.json().path("messages");
        assertThat(types(messages)).doesNotContain("assistant_message").contains("tool_call_message", "tool_return_message");
        JsonNode call = messages.valueStream().filter(m -> m.path("message_type").asString().equals("tool_call_message"))
                .findFirst().orElseThrow();
        assertThat(call.path("tool_call").path("name").asString()).isEqualTo("send_message");
        JsonNode ret = messages.valueStream().filter(m -> m.path("message_type").asString().equals("tool_return_message"))
                .findFirst().orElseThrow();
        assertThat(ret.path("status").asString()).isEqualTo("error");
        assertThat(ret.path("tool_return").asString()).contains("send_message");
        assertThat(r.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("invalid_tool_call");

        JsonNode listed = fx.get(fx.ana, "/v1/agents/" + agent + "/messages").json();
        assertThat(types(listed)).doesNotContain("assistant_message").contains("tool_call_message", "tool_return_message");
    }

    @Test
    void aStreamNeverShowsARefusedMessageAsTheAgentsWords() {
        String agent = refusingAgent();

        List<String> events = fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream",
                obj("messages", List.of(obj("role", "user", "content", "hello")), "stream_tokens", true));

        List<JsonNode> data = events.stream().filter(e -> e.startsWith("{")).map(e -> (JsonNode) JSON.readTree(e)).toList();
        assertThat(data).extracting(d -> d.path("message_type").asString()).doesNotContain("assistant_message")
                .contains("tool_call_message", "tool_return_message");
        assertThat(data).filteredOn(d -> d.path("message_type").asString().equals("tool_call_message"))
                .allSatisfy(d -> assertThat(d.path("tool_call").path("name").asString()).isEqualTo("send_message"));
        assertThat(data).filteredOn(d -> d.path("message_type").asString().equals("stop_reason"))
                .extracting(d -> d.path("stop_reason").asString()).containsExactly("invalid_tool_call");
    }

    @Test
    void aMessageToAnotherAgentIsAToolCallInTheStreamAndTheReplyToTheUserIsTheAgentsWords() {
        String agent = fx.agent(fx.ana, "helper");
        String other = fx.agent(fx.ana, "colleague");

        List<String> events = fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream", obj("messages", List.of(obj("role",
                "user", "content", "call {\"name\": \"send_message\", \"arguments\": {\"message\": \"psst\", \"target_agent_id\": \""
                        + other + "\"}}")), "stream_tokens", true));

        List<JsonNode> data = events.stream().filter(e -> e.startsWith("{")).map(e -> (JsonNode) JSON.readTree(e)).toList();
        // What send_message calls wrote for the user (the model's own text beside its calls streams apart).
        List<JsonNode> said = data.stream().filter(d -> d.path("message_type").asString().equals("assistant_message")
                && d.path("id").asString().contains("-reply-")).toList();
        assertThat(said).extracting(d -> d.path("id").asString()).containsOnly(said.getFirst().path("id").asString());
        assertThat(said.stream().map(d -> d.path("content").asString()).reduce("", String::concat)).startsWith("done: ")
                .contains("You said: ");
        String calls = data.stream().filter(d -> d.path("message_type").asString().equals("tool_call_message"))
                .map(d -> d.path("tool_call").path("arguments").asString()).reduce("", String::concat);
        assertThat(calls).contains("psst", other);
        assertThat(data).filteredOn(d -> d.path("message_type").asString().equals("tool_return_message"))
                .extracting(d -> d.path("status").asString()).containsExactly("success");
    }

    @Test
    void aLettaV1AgentGoesOnAfterAToolCallWithoutAHeartbeatAndAnswers() {
        String agent = fx.agent(fx.ana, "helper");

        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage(
                "quiet {\"name\": \"block\", \"arguments\": {\"operation\": \"view\", \"label\": \"human\"}}"));

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(types(r.json().path("messages"))).containsExactly("user_message", "tool_call_message", "tool_return_message",
                "assistant_message");
        assertThat(r.json().path("messages").get(3).path("content").asString()).startsWith("done: ");
        assertThat(r.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("end_turn");
    }

    @Test
    void aMemgptTurnCutShortForWantOfAHeartbeatSaysSo() {
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "classic", "agent_type", "memgpt_v2_agent",
                "memory_blocks", List.of(obj("label", "human", "value", "The user's name is unknown."))));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String agent = created.json().path("id").asString();

        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage(
                "quiet {\"name\": \"block\", \"arguments\": {\"operation\": \"view\", \"label\": \"human\"}}"));

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(types(r.json().path("messages"))).containsExactly("user_message", "tool_call_message", "tool_return_message");
        assertThat(r.json().path("messages").get(2).path("status").asString()).isEqualTo("success");
        assertThat(r.json().path("stop_reason").path("stop_reason").asString()).isEqualTo("no_tool_call");
    }
}
