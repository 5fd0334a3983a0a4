package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.AiTool;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.BlockStore;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import dev.engram.memory.ToolOutcome;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A step whose calls all run inline on a store that can undo part of a unit of work is one transaction: the call's
 * record, what the tools write, their results and the step's record commit together, and a call that fails half-way
 * leaves none of its writes.
 */
class OneUnitStepTest {
    private static final Scope ANA = Scope.of("ana", "helper");

    @TempDir
    Path dir;
    private CountingFixture fx;

    record Nothing(Optional<String> note) {
    }

    /** Writes a block, then throws; runs inline. */
    private final class Scribble implements AiTool<Nothing, String> {
        @Override
        public ToolInfo info() {
            return ToolInfo.of("scribble", "Writes in the notes block, then breaks.", SafetyTier.SIDE_EFFECTING);
        }

        @Override
        public Class<Nothing> inputType() {
            return Nothing.class;
        }

        @Override
        public boolean runsInline() {
            return true;
        }

        @Override
        public String execute(Nothing input, ToolContext context) {
            fx.store.blocks().replace(ANA, "notes", "half-written", BlockStore.ANY_VERSION);
            throw new ToolException("The notes could not be finished.");
        }
    }

    private Agent open(ScriptedChatModel model) {
        fx = new CountingFixture(dir);
        return fx.open("script:test", model, new Scribble()).create(AgentDefinition.builder("ana").id("helper")
                .model("script:test")
                .block(NewBlock.builder("human").value("").limit(1000).build())
                .block(NewBlock.builder("notes").value("clean").limit(1000).build())
                .tools("block", "send_message", "scribble").approvalMode(ApprovalMode.YOLO).build());
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void aStepOfInlineCallsIsOneTransaction() {
        Agent agent = open(script("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "view", "label": "human"}},
                                  {"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Ana"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Noted."}}]}
                ]}"""));
        fx.writes.set(0);
        AgentResponse r = agent.send("I'm Ana.");
        assertThat(r.reply()).contains("Noted.");
        // the user message (1), the block step in one transaction (1: before, 2, its calls being written alone first),
        // and the send_message step as before (2: that tool may wait for another agent, so it does not run inline)
        assertThat(r.steps()).isEqualTo(2);
        assertThat(fx.writes.get()).isEqualTo(4);
        assertThat(fx.store.blocks().get(ANA, "human").orElseThrow().value()).isEqualTo("Ana");
        List<ConversationMessage> stored = fx.store.messages().list(ANA, MessageQuery.all());
        assertThat(stored).extracting(ConversationMessage::role).extracting(Enum::name).containsExactly(
                "USER", "ASSISTANT", "TOOL", "TOOL", "ASSISTANT", "TOOL");
        // what the agent keeps in context is what the store holds
        assertThat(agent.inContextMessages()).isEqualTo(fx.store.messages().list(ANA, MessageQuery.inContext()));
    }

    @Test
    void aToolThatThrowsAfterWritingLeavesNoWriteWhileTheStepsOtherCallsAndRecordsStay() {
        Agent agent = open(script("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Ana"}},
                                  {"name": "scribble", "arguments": {}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Done."}}]}
                ]}"""));
        AgentResponse r = agent.send("Take notes.");
        assertThat(r.reply()).contains("Done.");
        assertThat(fx.store.blocks().get(ANA, "notes").orElseThrow().value()).isEqualTo("clean");
        assertThat(fx.store.blocks().get(ANA, "human").orElseThrow().value()).isEqualTo("Ana");
        List<ConversationMessage> stored = fx.store.messages().list(ANA, MessageQuery.all());
        assertThat(stored.get(1).toolCalls()).extracting(c -> c.name()).containsExactly("block", "scribble");
        assertThat(stored.get(2).toolOutcome().orElseThrow().status()).isEqualTo(ToolOutcome.Status.OK);
        assertThat(stored.get(3).toolOutcome().orElseThrow().status()).isEqualTo(ToolOutcome.Status.ERROR);
        assertThat(stored.get(3).content()).contains("The notes could not be finished.");
        assertThat(fx.runtime.agent("ana", "helper").inContextMessages()).isEqualTo(
                fx.store.messages().list(ANA, MessageQuery.inContext()));
    }

    @Test
    void everyStepsPromptHoldsWhatTheStoreHoldsInContextWhateverHappensBetweenTurns() {
        List<String> mismatches = new java.util.ArrayList<>();
        AtomicInteger n = new AtomicInteger();
        dev.engram.framework.model.ChatModel checking = new dev.engram.framework.model.ChatModel() {
            @Override
            public String name() {
                return "checking";
            }

            @Override
            public dev.engram.framework.model.ChatResponse chat(dev.engram.framework.model.ChatRequest request) {
                List<String> prompt = request.messages().stream().skip(1).map(m -> switch (m) {
                    case dev.engram.framework.model.ChatMessage.User u -> u.text();
                    case dev.engram.framework.model.ChatMessage.Assistant a -> a.text();
                    case dev.engram.framework.model.ChatMessage.ToolResult t -> t.content();
                    default -> "?";
                }).toList();
                // as the prompt shows the store's context: a result whose call left the context is left out
                List<ConversationMessage> in = fx.store.messages().list(ANA, MessageQuery.inContext());
                java.util.Set<String> calls = new java.util.HashSet<>();
                in.forEach(m -> m.toolCalls().forEach(c -> calls.add(c.id())));
                List<String> inStore = in.stream().filter(m -> m.toolCallId().map(calls::contains).orElse(true))
                        .map(ConversationMessage::content).toList();
                if (!prompt.equals(inStore)) {
                    mismatches.add(prompt + " != " + inStore);
                }
                int k = n.incrementAndGet();
                dev.engram.framework.ToolCall call = k % 2 == 1
                        ? new dev.engram.framework.ToolCall("v" + k, "block", "{\"operation\":\"view\",\"label\":\"human\",\"request_heartbeat\":true}")
                        : new dev.engram.framework.ToolCall("s" + k, "send_message", "{\"message\":\"ok " + k + "\"}");
                return new dev.engram.framework.model.ChatResponse(new dev.engram.framework.model.ChatMessage.Assistant(
                        "step " + k, List.of(call)), dev.engram.framework.model.ChatResponse.Usage.NONE,
                        dev.engram.framework.model.ChatResponse.StopReason.TOOL_CALLS);
            }
        };
        fx = new CountingFixture(dir);
        Agent agent = fx.open("script:test", checking).create(AgentDefinition.builder("ana").id("helper").model("script:test")
                .block(NewBlock.builder("human").value("Ana").limit(1000).build())
                .tools("block", "send_message").approvalMode(ApprovalMode.YOLO).build());
        for (int i = 0; i < 6; i++) {
            agent.send("message " + i);
            List<Long> in = fx.store.messages().list(ANA, MessageQuery.inContext()).stream().map(ConversationMessage::id).toList();
            switch (i % 3) {
                case 0 -> fx.store.messages().markOutOfContext(ANA, in.subList(0, 2)); // a trim
                case 1 -> fx.store.messages().append(ANA, dev.engram.memory.NewMessage.user("default", "via the API " + i));
                default -> fx.store.messages().edit(ANA, in.getLast(), "corrected " + i, List.of(),
                        dev.engram.memory.MessageReasoning.NONE);
            }
        }
        assertThat(n.get()).isGreaterThanOrEqualTo(12);
        assertThat(mismatches).isEmpty();
    }
}
