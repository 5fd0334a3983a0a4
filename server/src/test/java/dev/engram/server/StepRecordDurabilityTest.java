package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolCall;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ModelException;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import dev.engram.memory.Step;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A turn's step records are stored as the turn goes, each with its step's messages, not only at the run's end: a turn
 * cut off after its first step (here its model fails at the second call, which first looks at what the store holds, as
 * a process killed at that moment would leave it) has that step's record, with the step's messages, already stored.
 */
class StepRecordDurabilityTest {
    @TempDir
    Path dir;
    ServerFixture fx;
    String agent;
    final FailsAtSecondCall model = new FailsAtSecondCall();

    /** Calls the block tool, then, at its next call, notes the steps stored so far and fails. */
    static final class FailsAtSecondCall implements ChatModel {
        volatile MemoryStore store;
        final AtomicInteger calls = new AtomicInteger();
        final List<Step> storedAtSecondCall = new CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return "fails-at-second-call";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            if (calls.incrementAndGet() % 2 == 1) {
                ToolCall call = new ToolCall("c" + calls.get(), "block",
                        "{\"operation\":\"append\",\"label\":\"human\",\"text\":\" Likes tea.\"}");
                return new ChatResponse(new ChatMessage.Assistant("", List.of(call)), ChatResponse.Usage.NONE,
                        ChatResponse.StopReason.TOOL_CALLS);
            }
            storedAtSecondCall.addAll(store.runs().steps("ana"));
            throw new ModelException("the provider went away");
        }
    }

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:fails", model)));
        model.store = fx.store;
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "helper", "model", "test:fails",
                "memory_blocks", List.of(obj("label", "human", "value", "Ana."))));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        agent = created.json().path("id").asString();
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private void assertFirstStepWasStoredWithItsMessagesBeforeTheSecond() {
        assertThat(model.storedAtSecondCall).singleElement().satisfies(step -> {
            assertThat(step.agentId()).isEqualTo(agent);
            assertThat(step.status()).isEqualTo("success");
            assertThat(step.response()).contains("\"name\":\"block\"");
            // the step's own messages: the user's input (a run's first step carries it, as Letta files it), the call and
            // its result, stored in the same transaction as the record
            List<ConversationMessage> stored = fx.store.messages().list(Scope.of("ana", agent), MessageQuery.all());
            assertThat(step.messageIds()).hasSize(3);
            assertThat(stored.stream().map(ConversationMessage::id).toList()).containsAll(step.messageIds());
        });
        String run = model.storedAtSecondCall.getFirst().runId();
        // the failed second step is stored with the run's end, after the first
        assertThat(fx.store.runs().steps("ana", run)).extracting(Step::status).containsExactly("success", "failed");
    }

    @Test
    void aJsonTurnStoresEachStepsRecordWithItsMessagesAsItGoes() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("Remember tea."));
        assertThat(r.status()).as(r.text()).isGreaterThanOrEqualTo(500);
        assertFirstStepWasStoredWithItsMessagesBeforeTheSecond();
    }

    @Test
    void aStreamedTurnStoresEachStepsRecordWithItsMessagesAsItGoes() {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages/stream",
                obj("messages", List.of(obj("role", "user", "content", "Remember tea."))));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.text()).contains("error");
        assertFirstStepWasStoredWithItsMessagesBeforeTheSecond();
    }
}
