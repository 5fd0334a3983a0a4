package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Letta's OpenAI-compatible {@code POST /v1/chat/completions} (the model field names the agent) and
 * {@code /v1/voice-beta/{agent_id}/chat/completions}: the last user message is one turn of the agent, answered as
 * OpenAI's {@code ChatCompletion} or its chunk stream; bad input changes nothing; another user's agent is a 404.
 */
class ChatCompletionsEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
        agent = fx.agent(fx.ana, "chatty");
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private List<String> userMessages() {
        return fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all().withLimit(1_000)).stream()
                .filter(m -> m.role() == MessageRole.USER).map(ConversationMessage::content).toList();
    }

    @Test
    void theLastUserMessageIsOneTurnOfTheAgentAnsweredAsAChatCompletion() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/chat/completions", obj("model", agent, "messages", List.of(
                obj("role", "system", "content", "ignored: the agent has its own"), obj("role", "user", "content", "earlier"),
                obj("role", "assistant", "content", "ok"), obj("role", "user", "content", "hello agent"))));

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("object").asString()).isEqualTo("chat.completion");
        assertThat(r.json().path("id").asString()).startsWith("chatcmpl-");
        assertThat(r.json().path("model").asString()).isEqualTo(agent);
        JsonNode choice = r.json().path("choices").path(0);
        assertThat(choice.path("message").path("role").asString()).isEqualTo("assistant");
        assertThat(choice.path("message").path("content").asString()).isEqualTo("You said: hello agent");
        assertThat(choice.path("finish_reason").asString()).isEqualTo("stop");
        assertThat(r.json().path("usage").path("total_tokens").asInt()).isPositive();
        assertThat(userMessages()).containsExactly("hello agent");
        // Content parts, as OpenAI's clients send them.
        ServerFixture.Response parts = fx.post(fx.ana, "/v1/chat/completions", obj("model", agent, "messages", List.of(
                obj("role", "user", "content", List.of(obj("type", "text", "text", "in parts"))))));
        assertThat(parts.status()).as(parts.text()).isEqualTo(200);
        assertThat(parts.json().path("choices").path(0).path("message").path("content").asString()).isEqualTo("You said: in parts");
    }

    @Test
    void withStreamTheAnswerIsOpenAisChunkStream() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/chat/completions", obj("model", agent, "stream", true,
                "messages", List.of(obj("role", "user", "content", "stream it"))));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        List<String> data = r.text().lines().filter(l -> l.startsWith("data: ")).map(l -> l.substring(6)).toList();
        assertThat(data.getLast()).isEqualTo("[DONE]");
        JsonNode first = ServerFixture.JSON.readTree(data.getFirst());
        assertThat(first.path("object").asString()).isEqualTo("chat.completion.chunk");
        assertThat(first.path("choices").path(0).path("delta").path("role").asString()).isEqualTo("assistant");
        assertThat(first.path("choices").path(0).path("delta").path("content").asString()).isEqualTo("You said: stream it");
        JsonNode stop = ServerFixture.JSON.readTree(data.get(data.size() - 2));
        assertThat(stop.path("choices").path(0).path("finish_reason").asString()).isEqualTo("stop");
        assertThat(stop.path("id").asString()).isEqualTo(first.path("id").asString());
    }

    @Test
    void voiceBetaNamesTheAgentInItsPath() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/voice-beta/" + agent + "/chat/completions", obj("model", "gpt-4o",
                "call", obj("id", "vapi-call"), "messages", List.of(obj("role", "user", "content", "by voice"))));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("choices").path(0).path("message").path("content").asString()).isEqualTo("You said: by voice");
        assertThat(userMessages()).containsExactly("by voice");
    }

    @Test
    void badInputIsRefusedAndNothingIsStored() {
        assertThat(fx.post(fx.ana, "/v1/chat/completions", obj("messages", List.of(obj("role", "user", "content", "x"))))
                .status()).isEqualTo(422);
        ServerFixture.Response notAnAgent = fx.post(fx.ana, "/v1/chat/completions", obj("model", "gpt-4o", "messages",
                List.of(obj("role", "user", "content", "x"))));
        assertThat(notAnAgent.status()).isEqualTo(422);
        assertThat(notAnAgent.text()).contains("agent");
        ServerFixture.Response noUser = fx.post(fx.ana, "/v1/chat/completions", obj("model", agent, "messages",
                List.of(obj("role", "system", "content", "x"))));
        assertThat(noUser.status()).isEqualTo(422);
        assertThat(noUser.text()).contains("user");
        assertThat(fx.post(fx.ana, "/v1/chat/completions", obj("model", agent)).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/chat/completions", obj("model", agent, "stream", "yes", "messages",
                List.of(obj("role", "user", "content", "x")))).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/chat/completions", obj("model", agent, "messages",
                List.of(obj("role", "user", "content", ""))))).satisfies(r -> assertThat(r.status()).isEqualTo(422));
        assertThat(fx.post(fx.ana, "/v1/voice-beta/" + agent + "/chat/completions", obj()).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/chat/completions", obj("model", "agent-nope", "messages",
                List.of(obj("role", "user", "content", "x")))).status()).isEqualTo(404);
        assertThat(userMessages()).isEmpty();
    }

    @Test
    void anotherUsersAgentIsNotFound() {
        ServerFixture.Response r = fx.post(fx.ben, "/v1/chat/completions", obj("model", agent, "messages",
                List.of(obj("role", "user", "content", "hi"))));
        assertThat(r.status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/voice-beta/" + agent + "/chat/completions", obj("messages",
                List.of(obj("role", "user", "content", "hi")))).status()).isEqualTo(404);
        assertThat(userMessages()).isEmpty();
    }
}
