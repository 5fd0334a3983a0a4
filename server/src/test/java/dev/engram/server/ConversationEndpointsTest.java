package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolCall;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code /v1/conversations}: several conversations with one agent, each seeing only its own messages (and the agent's
 * shared blocks), {@code default} being the agent's own history; bad input is refused with nothing changed; another
 * user's key gets 404.
 */
class ConversationEndpointsTest {
    /** Answers with every user message it was shown, so that a test sees the context a turn had. */
    static final class ContextModel implements ChatModel {
        private static final JsonMapper JSON = JsonMapper.builder().build();

        @Override
        public String name() {
            return "context";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            String seen = request.messages().stream().filter(m -> m instanceof ChatMessage.User)
                    .map(m -> ((ChatMessage.User) m).text()).filter(t -> !t.startsWith("[")).collect(Collectors.joining(" | "));
            String args = JSON.createObjectNode().put("message", "seen: " + seen).toString();
            return new ChatResponse(new ChatMessage.Assistant("", List.of(new ToolCall("call-" + System.nanoTime(),
                    "send_message", args))), new ChatResponse.Usage(10, 5), ChatResponse.StopReason.TOOL_CALLS);
        }
    }

    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", new EchoModel()).model("test:ctx",
                new ContextModel())));
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "helper", "model", "test:ctx"));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        agent = created.json().path("id").asString();
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private String say(String conversation, String text) {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/conversations/" + conversation + "/messages"
                + (conversation.equals("default") ? "?agent_id=" + agent : ""), obj("messages",
                List.of(obj("role", "user", "content", text)), "streaming", false));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("messages").valueStream().filter(m -> m.path("message_type").asString().equals("assistant_message"))
                .map(m -> m.path("content").asString()).findFirst().orElseThrow();
    }

    @Test
    void eachConversationSeesOnlyItsOwnMessagesAndDefaultIsTheAgentsHistory() {
        ServerFixture.Response created = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj("summary", "the trip"));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String trip = created.json().path("id").asString();
        assertThat(trip).startsWith("conv-");
        assertThat(created.json().path("agent_id").asString()).isEqualTo(agent);
        assertThat(created.json().path("summary").asString()).isEqualTo("the trip");
        String work = fx.post(fx.ana, "/v1/conversations?agent_id=" + agent, obj()).json().path("id").asString();

        assertThat(say("default", "my own")).isEqualTo("seen: my own");
        assertThat(say(trip, "to Lisbon")).isEqualTo("seen: to Lisbon");
        assertThat(say(work, "the report")).isEqualTo("seen: the report");
        assertThat(say(trip, "in May")).isEqualTo("seen: to Lisbon | in May");
        assertThat(say("default", "again")).isEqualTo("seen: my own | again");

        JsonNode tripMessages = fx.get(fx.ana, "/v1/conversations/" + trip + "/messages?order=asc").json();
        assertThat(tripMessages.valueStream().filter(m -> m.path("message_type").asString().equals("user_message"))
                .map(m -> m.path("content").asString()).toList()).containsExactly("to Lisbon", "in May");
        JsonNode own = fx.get(fx.ana, "/v1/conversations/default/messages?order=asc&agent_id=" + agent).json();
        assertThat(own.valueStream().filter(m -> m.path("message_type").asString().equals("user_message"))
                .map(m -> m.path("content").asString()).toList()).containsExactly("my own", "again");
        JsonNode retrieved = fx.get(fx.ana, "/v1/conversations/" + trip).json();
        assertThat(retrieved.path("in_context_message_ids").size()).as("two turns: user, assistant and send_message's return each").isEqualTo(6);
        assertThat(retrieved.path("last_message_at").isString()).isTrue();

        assertThat(fx.get(fx.ana, "/v1/conversations/?agent_id=" + agent).json().valueStream()
                .map(c -> c.path("id").asString()).toList()).containsExactlyInAnyOrder(trip, work);
        assertThat(fx.get(fx.ana, "/v1/conversations/?summary_search=TRIP").json().valueStream()
                .map(c -> c.path("id").asString()).toList()).containsExactly(trip);

        ServerFixture.Response renamed = fx.patch(fx.ana, "/v1/conversations/" + trip, obj("summary", "Lisbon in May"));
        assertThat(renamed.json().path("summary").asString()).isEqualTo("Lisbon in May");

        ServerFixture.Response fork = fx.post(fx.ana, "/v1/conversations/" + trip + "/fork", obj());
        assertThat(fork.status()).as(fork.text()).isEqualTo(200);
        String forked = fork.json().path("id").asString();
        assertThat(forked).isNotEqualTo(trip);
        assertThat(say(forked, "by train")).isEqualTo("seen: to Lisbon | in May | by train");
        assertThat(say(trip, "by plane")).isEqualTo("seen: to Lisbon | in May | by plane");

        ServerFixture.Response recompiled = fx.post(fx.ana, "/v1/conversations/" + trip + "/recompile", obj());
        assertThat(recompiled.status()).isEqualTo(200);
        assertThat(recompiled.json().asString()).contains("<memory_blocks>");

        assertThat(fx.delete(fx.ana, "/v1/conversations/" + work).status()).isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/conversations/" + work).status()).isEqualTo(404);
        assertThat(fx.store.conversations().list("ana")).hasSize(2);
    }

    @Test
    void aConversationStreamsByDefaultAndCancelAnswersThatNothingRuns() {
        String conv = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj()).json().path("id").asString();
        List<String> events = fx.stream(fx.ana, "/v1/conversations/" + conv + "/messages", fx.userMessage("streamed"));
        assertThat(events.getLast()).isEqualTo("[DONE]");
        assertThat(events).anyMatch(e -> e.contains("\"assistant_message\"") && e.contains("seen: streamed"));
        // nothing runs in it any more: Letta's 409 (the cancel of a waiting turn: ClientToolsTest)
        ServerFixture.Response cancel = fx.post(fx.ana, "/v1/conversations/" + conv + "/cancel", obj());
        assertThat(cancel.status()).isEqualTo(409);
        assertThat(cancel.text()).contains("No active runs to cancel for conversation " + conv);
    }

    @Test
    void badInputIsRefusedAndChangesNothing() {
        assertThat(fx.post(fx.ana, "/v1/conversations/", obj()).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/conversations/?agent_id=agent-nope", obj()).status()).isEqualTo(404);
        ServerFixture.Response isolated = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent,
                obj("isolated_block_labels", List.of("human")));
        assertThat(isolated.status()).isEqualTo(422);
        assertThat(isolated.text()).contains("isolated");
        ServerFixture.Response model = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj("model", "openai/gpt-4o"));
        assertThat(model.status()).isEqualTo(422);
        assertThat(model.text()).contains("agent's model");
        ServerFixture.Response tooLong = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent,
                obj("summary", "x".repeat(10_001)));
        assertThat(tooLong.status()).isEqualTo(422);
        assertThat(fx.store.conversations().list("ana")).isEmpty();

        String conv = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj("summary", "kept")).json().path("id").asString();
        assertThat(fx.patch(fx.ana, "/v1/conversations/" + conv, obj("summary", 42)).status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/conversations/" + conv).json().path("summary").asString()).isEqualTo("kept");
        ServerFixture.Response empty = fx.post(fx.ana, "/v1/conversations/" + conv + "/messages",
                obj("messages", List.of(obj("role", "user", "content", " ")), "streaming", false));
        assertThat(empty.status()).isEqualTo(422);
        ServerFixture.Response noAgent = fx.post(fx.ana, "/v1/conversations/default/messages",
                obj("input", "hi", "streaming", false));
        assertThat(noAgent.status()).isEqualTo(422);
        assertThat(noAgent.text()).contains("agent_id");
        assertThat(fx.store.messages().count(Scope.of("ana", agent))).isZero();
        assertThat(fx.get(fx.ana, "/v1/conversations/conv-nope").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/conversations/default?agent_id=" + agent).status()).isEqualTo(400);
    }

    @Test
    void anotherUsersKeyGetsNotFoundAndChangesNothing() {
        String conv = fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj("summary", "ana's")).json().path("id").asString();
        say(conv, "secret plans");
        assertThat(fx.get(fx.ben, "/v1/conversations/" + conv).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/conversations/" + conv + "/messages").status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/conversations/" + conv, obj("summary", "ben's")).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ben, "/v1/conversations/" + conv).status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/conversations/" + conv + "/messages", obj("input", "hi", "streaming", false)).status())
                .isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/conversations/" + conv + "/fork", obj()).status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/conversations/?agent_id=" + agent, obj()).status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/conversations/default/messages?agent_id=" + agent, obj("input", "hi",
                "streaming", false)).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/conversations/").json().size()).isZero();
        assertThat(fx.get(fx.ana, "/v1/conversations/" + conv).json().path("summary").asString()).isEqualTo("ana's");
        assertThat(fx.store.conversations().list("ana")).hasSize(1);
        assertThat(fx.store.conversations().list("ben")).isEmpty();
        assertThat(fx.get(fx.admin, "/v1/conversations/" + conv).status()).isEqualTo(200);
    }
}
