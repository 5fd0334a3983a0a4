package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code PATCH /v1/agents/{agent_id}/messages/{message_id}}: Letta's update union corrects a stored user or assistant
 * message in place (same id, same place), recall search finds the new text, the agent's next prompt shows it; bad input
 * changes nothing; another agent's message id and another user's key are a 404.
 */
class MessageEditEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
        agent = fx.agent(fx.ana, "editable");
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("I live in Lisbn")).status()).isEqualTo(200);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private List<ConversationMessage> stored() {
        return fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all().withLimit(1_000));
    }

    private String idOf(MessageRole role) {
        return Ids.message(stored().stream().filter(m -> m.role() == role).findFirst().orElseThrow().id());
    }

    private List<String> found(String query) {
        fx.search.awaitIndexed();
        return fx.search.search(SearchRequest.builder(Scope.of("ana", agent), query).domains(SearchDomain.CONVERSATIONS)
                .mode(SearchMode.BM25).k(10).build()).stream().map(SearchHit::text).toList();
    }

    @Test
    void aUserMessageIsCorrectedInPlaceAndRecallSearchFindsTheNewText() {
        String user = idOf(MessageRole.USER);
        List<Long> order = stored().stream().map(ConversationMessage::id).toList();

        ServerFixture.Response r = fx.patch(fx.ana, "/v1/agents/" + agent + "/messages/" + user,
                obj("message_type", "user_message", "content", "I live in Porto"));

        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("id").asString()).isEqualTo(user);
        assertThat(r.json().path("message_type").asString()).isEqualTo("user_message");
        assertThat(r.json().path("content").asString()).isEqualTo("I live in Porto");
        assertThat(stored().stream().map(ConversationMessage::id).toList()).isEqualTo(order);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/messages").json().valueStream()
                .filter(m -> m.path("id").asString().equals(user)).map(m -> m.path("content").asString()).toList())
                .containsExactly("I live in Porto");
        assertThat(found("Porto")).anyMatch(t -> t.contains("I live in Porto"));
        assertThat(found("Lisbn")).doesNotContain("I live in Lisbn");
        // The next prompt shows the correction.
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/context").json().path("messages").valueStream()
                .map(m -> m.path("content").asString("")).toList()).contains("I live in Porto");
        // Without a message_type, the stored message's own; content as text parts.
        ServerFixture.Response parts = fx.patch(fx.ana, "/v1/agents/" + agent + "/messages/" + user,
                obj("content", List.of(obj("type", "text", "text", "I live in Faro"))));
        assertThat(parts.status()).as(parts.text()).isEqualTo(200);
        assertThat(parts.json().path("content").asString()).isEqualTo("I live in Faro");
    }

    @Test
    void anAssistantMessageSentWithSendMessageIsCorrectedInItsCall() {
        String assistant = idOf(MessageRole.ASSISTANT);
        ServerFixture.Response r = fx.patch(fx.ana, "/v1/agents/" + agent + "/messages/" + assistant,
                obj("message_type", "assistant_message", "content", "You live in Lisbon."));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("message_type").asString()).isEqualTo("assistant_message");
        assertThat(r.json().path("content").asString()).isEqualTo("You live in Lisbon.");
        JsonNode shown = fx.get(fx.ana, "/v1/agents/" + agent + "/messages").json();
        assertThat(shown.valueStream().filter(m -> m.path("message_type").asString().equals("assistant_message"))
                .map(m -> m.path("content").asString()).toList()).containsExactly("You live in Lisbon.");
        ConversationMessage m = fx.store.messages().get(Scope.of("ana", agent), Ids.message(assistant, "m")).orElseThrow();
        assertThat(m.toolCalls().getFirst().name()).isEqualTo("send_message");
        assertThat(ServerFixture.JSON.readTree(m.toolCalls().getFirst().arguments()).path("message").asString())
                .isEqualTo("You live in Lisbon.");
    }

    @Test
    void badInputIsRefusedAndNothingChanges() {
        List<ConversationMessage> before = stored();
        String user = idOf(MessageRole.USER);
        String path = "/v1/agents/" + agent + "/messages/" + user;
        assertThat(fx.patch(fx.ana, path, obj("message_type", "assistant_message", "content", "x")).status()).isEqualTo(400);
        assertThat(fx.patch(fx.ana, path, obj("message_type", "reasoning_message", "reasoning", "x")).status()).isEqualTo(400);
        assertThat(fx.patch(fx.ana, path, obj("message_type", "tool_call_message", "content", "x")).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ana, path, obj("message_type", "user_message")).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ana, path, obj("content", 7)).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ana, path, obj("content", "")).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ana, path, obj("content", List.of(obj("type", "image", "source", obj("type", "url",
                "url", "https://example.com/a.png"))))).status()).isEqualTo(422);
        assertThat(fx.patch(fx.ana, path, obj("content", "x".repeat(fx.store.limits().maxTextChars() + 1))).status())
                .isEqualTo(400);
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/messages/not-a-message", obj("content", "x")).status())
                .isEqualTo(404);
        // Another agent's message, even of the same user, is not this agent's.
        String other = fx.agent(fx.ana, "other");
        assertThat(fx.patch(fx.ana, "/v1/agents/" + other + "/messages/" + user, obj("content", "x")).status()).isEqualTo(404);
        assertThat(stored()).isEqualTo(before);
    }

    @Test
    void anotherUsersKeyGetsNotFound() {
        List<ConversationMessage> before = stored();
        ServerFixture.Response r = fx.patch(fx.ben, "/v1/agents/" + agent + "/messages/" + idOf(MessageRole.USER),
                obj("content", "ben was here"));
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.text()).doesNotContain("Lisbn");
        String bens = fx.agent(fx.ben, "bens");
        assertThat(fx.patch(fx.ben, "/v1/agents/" + bens + "/messages/" + idOf(MessageRole.USER), obj("content", "x"))
                .status()).isEqualTo(404);
        assertThat(stored()).isEqualTo(before);
    }
}
