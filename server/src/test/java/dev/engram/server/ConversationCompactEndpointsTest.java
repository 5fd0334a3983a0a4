package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolCall;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /v1/conversations/{id}/compact} (summarise and evict now, Letta's {@code CompactionResponse}) and
 * {@code /recompile} with Letta's body: a conversation's or the agent's own history; bad input is refused with nothing
 * changed; another user's key gets 404.
 */
class ConversationCompactEndpointsTest {
    /** Answers a turn with every user message it was shown; a summariser's request (no tools) with a summary of them. */
    static final class SummarisingModel implements ChatModel {
        private static final JsonMapper JSON = JsonMapper.builder().build();

        @Override
        public String name() {
            return "summarising";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            if (request.tools().isEmpty()) {
                String transcript = ((ChatMessage.User) request.messages().getLast()).text();
                return new ChatResponse(new ChatMessage.Assistant("Summary: " + transcript.replace('\n', ' '), List.of()),
                        new ChatResponse.Usage(10, 5), ChatResponse.StopReason.END_TURN);
            }
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
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:sum", new SummarisingModel())));
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "helper", "model", "test:sum"));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        agent = created.json().path("id").asString();
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private String conversation() {
        return fx.post(fx.ana, "/v1/conversations/?agent_id=" + agent, obj()).json().path("id").asString();
    }

    private String say(String conversation, String text) {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/conversations/" + conversation + "/messages", obj("messages",
                List.of(obj("role", "user", "content", text)), "streaming", false, "agent_id", agent));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("messages").valueStream().filter(m -> m.path("message_type").asString().equals("assistant_message"))
                .map(m -> m.path("content").asString()).findFirst().orElseThrow();
    }

    private List<ConversationMessage> inContext() {
        return fx.store.messages().list(Scope.of("ana", agent), MessageQuery.inContext().withLimit(1_000));
    }

    @Test
    void compactSummarisesTheOlderMessagesOfOneConversationAndLaterTurnsSeeTheSummary() {
        String trip = conversation();
        say("default", "my own");
        for (String line : List.of("to Lisbon", "in May", "by train", "with Ben")) {
            say(trip, line);
        }
        int ownBefore = fx.get(fx.ana, "/v1/conversations/default/messages?agent_id=" + agent).json().size();

        ServerFixture.Response compacted = fx.post(fx.ana, "/v1/conversations/" + trip + "/compact", obj());

        assertThat(compacted.status()).as(compacted.text()).isEqualTo(200);
        assertThat(compacted.json().path("summary").asString()).contains("to Lisbon").doesNotContain("with Ben");
        int before = compacted.json().path("num_messages_before").asInt();
        int after = compacted.json().path("num_messages_after").asInt();
        assertThat(before).as("four turns of user, send_message call and its return").isEqualTo(12);
        assertThat(after).isLessThan(before);
        assertThat(fx.get(fx.ana, "/v1/conversations/" + trip).json().path("in_context_message_ids").size()).isEqualTo(after);
        // Evicted messages stay in recall memory; the agent's own history is untouched.
        assertThat(fx.get(fx.ana, "/v1/conversations/" + trip + "/messages?limit=100&order=asc").json().valueStream()
                .filter(m -> m.path("message_type").asString().equals("user_message")).map(m -> m.path("content").asString())
                .toList()).containsExactly("to Lisbon", "in May", "by train", "with Ben");
        assertThat(fx.get(fx.ana, "/v1/conversations/default/messages?agent_id=" + agent).json().size()).isEqualTo(ownBefore);
        assertThat(say(trip, "by night")).doesNotContain("to Lisbon").contains("with Ben | by night");
        assertThat(inContext()).anyMatch(m -> m.content().contains("Summary of the earlier conversation: Summary: "));

        say("default", "again");
        say("default", "and again");
        ServerFixture.Response own = fx.post(fx.ana, "/v1/conversations/default/compact", obj("agent_id", agent,
                "compaction_settings", Map.of("model", "letta/auto")));
        assertThat(own.status()).as(own.text()).isEqualTo(200);
        assertThat(own.json().path("summary").asString()).contains("my own").doesNotContain("to Lisbon");
    }

    @Test
    void recompileNamesTheDefaultAgentInTheBodyAsLettaDoes() {
        ServerFixture.Response own = fx.post(fx.ana, "/v1/conversations/default/recompile", obj("agent_id", agent));
        assertThat(own.status()).as(own.text()).isEqualTo(200);
        assertThat(own.json().asString()).contains("<memory_blocks>");
        String trip = conversation();
        ServerFixture.Response conv = fx.post(fx.ana, "/v1/conversations/" + trip + "/recompile?dry_run=true", null);
        assertThat(conv.status()).as(conv.text()).isEqualTo(200);
        assertThat(conv.json().asString()).contains("<memory_blocks>");
    }

    @Test
    void badInputIsRefusedAndChangesNothing() {
        String trip = conversation();
        ServerFixture.Response empty = fx.post(fx.ana, "/v1/conversations/" + trip + "/compact", obj());
        assertThat(empty.status()).isEqualTo(400);
        assertThat(empty.detail()).contains("No in-context messages");
        say(trip, "only one");
        List<ConversationMessage> before = inContext();
        ServerFixture.Response tooFew = fx.post(fx.ana, "/v1/conversations/" + trip + "/compact", obj());
        assertThat(tooFew.status()).isEqualTo(400);
        assertThat(tooFew.detail()).contains("would not reduce the number of messages");
        say(trip, "a second one");
        before = inContext();
        ServerFixture.Response mode = fx.post(fx.ana, "/v1/conversations/" + trip + "/compact",
                obj("compaction_settings", Map.of("mode", "all")));
        assertThat(mode.status()).isEqualTo(422);
        assertThat(mode.detail()).contains("compaction_settings.mode");
        assertThat(fx.post(fx.ana, "/v1/conversations/" + trip + "/compact", "[1]").status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/conversations/" + trip + "/compact", obj("agent_id", 7)).status()).isEqualTo(422);
        ServerFixture.Response noAgent = fx.post(fx.ana, "/v1/conversations/default/compact", obj());
        assertThat(noAgent.status()).isEqualTo(422);
        assertThat(noAgent.detail()).contains("agent_id");
        assertThat(fx.post(fx.ana, "/v1/conversations/conv-nope/compact", obj()).status()).isEqualTo(404);
        assertThat(fx.post(fx.ana, "/v1/conversations/default/recompile", obj()).status()).isEqualTo(422);
        assertThat(inContext()).isEqualTo(before);
    }

    @Test
    void anotherUsersKeyGetsNotFoundAndChangesNothing() {
        String trip = conversation();
        for (String line : List.of("secret one", "secret two", "secret three")) {
            say(trip, line);
        }
        List<ConversationMessage> before = inContext();
        for (String path : List.of("/v1/conversations/" + trip + "/compact", "/v1/conversations/" + trip + "/recompile",
                "/v1/conversations/" + trip + "/cancel")) {
            ServerFixture.Response r = fx.post(fx.ben, path, obj());
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(r.text()).doesNotContain("secret");
        }
        ServerFixture.Response own = fx.post(fx.ben, "/v1/conversations/default/compact", obj("agent_id", agent));
        assertThat(own.status()).isEqualTo(404);
        assertThat(fx.post(fx.ben, "/v1/conversations/default/recompile", obj("agent_id", agent)).status()).isEqualTo(404);
        assertThat(inContext()).isEqualTo(before);
    }
}
