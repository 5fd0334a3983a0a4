package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The model's own reasoning through the server, as Letta shows it: the scripted model reasons, the runtime stores it,
 * {@code read_reasoning} reads it back, and the message views show it as a {@code reasoning_message} from a
 * {@code reasoner_model} (with its signature) and a {@code hidden_reasoning_message} for an encrypted part, apart from
 * the text beside tool calls ({@code non_reasoner_model}).
 */
class ReasoningMessagesTest {
    @TempDir
    Path dir;
    ServerFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private static List<String> types(JsonNode messages) {
        return messages.valueStream().map(m -> m.path("message_type").asString()).toList();
    }

    private String start() {
        ScriptedChatModel model = ScriptedChatModel.fromJson("""
                {"turns": [
                  {"reasoning": "Tea suits the evening.", "reasoning_signature": "sig-1", "redacted_reasoning": ["EmwKAhgB"],
                   "text": "Let me look back.", "tool_calls": [{"id": "c1", "name": "read_reasoning", "arguments": {}}]},
                  {"expect_in_prompt": ["thinking: Tea suits the evening.", "wrote beside the calls: Let me look back."],
                   "reasoning": "Answer now.", "text": "Green tea."}
                ]}""");
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", model)));
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", obj("name", "thinker", "agent_type", "letta_v1_agent",
                "tools", List.of("read_reasoning")));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("id").asString();
    }

    @Test
    void theModelsReasoningIsStoredReadBackAndListedAsLettaShowsIt() {
        String agent = start();

        ServerFixture.Response sent = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("What should I drink?"));

        assertThat(sent.status()).as(sent.text()).isEqualTo(200);
        List<String> expected = List.of("user_message", "reasoning_message", "hidden_reasoning_message", "reasoning_message",
                "tool_call_message", "tool_return_message", "reasoning_message", "assistant_message");
        assertThat(types(sent.json().path("messages"))).isEqualTo(expected);
        JsonNode listed = fx.get(fx.ana, "/v1/agents/" + agent + "/messages?order=asc").json();
        assertThat(types(listed)).isEqualTo(expected);
        JsonNode thought = listed.get(1);
        assertThat(thought.path("reasoning").asString()).isEqualTo("Tea suits the evening.");
        assertThat(thought.path("source").asString()).isEqualTo("reasoner_model");
        assertThat(thought.path("signature").asString()).isEqualTo("sig-1");
        JsonNode hidden = listed.get(2);
        assertThat(hidden.path("state").asString()).isEqualTo("redacted");
        assertThat(hidden.path("hidden_reasoning").asString()).isEqualTo("EmwKAhgB");
        JsonNode beside = listed.get(3);
        assertThat(beside.path("reasoning").asString()).isEqualTo("Let me look back.");
        assertThat(beside.path("source").asString()).isEqualTo("non_reasoner_model");
        assertThat(beside.path("signature").isNull()).isTrue();
        // the Letta messages of one stored message share its id, as in Letta
        assertThat(List.of(thought, hidden, beside, listed.get(4))).extracting(m -> m.path("id").asString()).containsOnly(thought.path("id").asString());
        assertThat(listed.get(5).path("tool_return").asString()).contains("thinking: Tea suits the evening.")
                .contains("wrote beside the calls: Let me look back.");
        assertThat(listed.get(6).path("reasoning").asString()).isEqualTo("Answer now.");
        assertThat(listed.get(6).path("source").asString()).isEqualTo("reasoner_model");
        assertThat(listed.get(6).path("signature").isNull()).isTrue();
        assertThat(listed.get(7).path("content").asString()).isEqualTo("Green tea.");

        // a fork of the agent's history keeps the reasoning with its messages
        ServerFixture.Response fork = fx.post(fx.ana, "/v1/conversations/default/fork?agent_id=" + agent, obj());
        assertThat(fork.status()).as(fork.text()).isEqualTo(200);
        String forked = fork.json().path("id").asString();
        assertThat(fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all().withSession(forked)).stream()
                .map(ConversationMessage::reasoning).filter(r -> !r.isEmpty()).toList()).containsExactly(
                new MessageReasoning("Tea suits the evening.", "sig-1", List.of("EmwKAhgB")), MessageReasoning.of("Answer now."));
    }

    @Test
    void theTypeFilterTakesHiddenReasoningAndRefusesAnUnknownType() {
        String agent = start();
        fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("What should I drink?"));

        ServerFixture.Response only = fx.get(fx.ana, "/v1/agents/" + agent + "/messages?include_return_message_types=hidden_reasoning_message");
        ServerFixture.Response bad = fx.get(fx.ana, "/v1/agents/" + agent + "/messages?include_return_message_types=thinking_message");

        assertThat(only.status()).as(only.text()).isEqualTo(200);
        assertThat(types(only.json())).containsExactly("hidden_reasoning_message");
        assertThat(bad.status()).as(bad.text()).isEqualTo(422);
        assertThat(bad.text()).contains("thinking_message");
        assertThat(types(fx.get(fx.ana, "/v1/agents/" + agent + "/messages").json())).hasSize(8);
        assertThat(fx.get(fx.ben, "/v1/agents/" + agent + "/messages").status()).isEqualTo(404);
    }
}
