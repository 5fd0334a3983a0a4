package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolCall;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import dev.engram.memory.sqlite.SqliteCounts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one step costs the store, counted (issue 34, item 1): {@code AgentStepBenchmark.step}'s step (5 blocks, 100
 * in-context messages trimmed back before each message, one {@code block view} call, no heartbeat) runs a bounded number
 * of SQLite statements, read units and write transactions, and its prompt is still what the store holds.
 */
class StepStatementsTest {
    private static final Scope SCOPE = Scope.of("bench-user", "bench-agent");
    private static final int IN_CONTEXT = 100;

    @TempDir
    Path dir;
    private CountingFixture fx;

    /** The benchmark's instant model: one {@code block view} call, no heartbeat; checks each prompt against the store. */
    private final class Instant implements ChatModel {
        final List<String> mismatches = new ArrayList<>();
        int calls;
        /** What the check itself ran: not the step's. */
        long checkStatements;
        int checkReads;

        @Override
        public String name() {
            return "instant";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            List<String> prompt = request.messages().stream().skip(1).map(m -> switch (m) {
                case ChatMessage.User u -> u.text();
                case ChatMessage.Assistant a -> a.text();
                case ChatMessage.ToolResult t -> t.content();
                default -> "?";
            }).toList();
            long s0 = SqliteCounts.statements(fx.sqlite);
            int r0 = fx.reads.get();
            List<ConversationMessage> in = fx.store.messages().list(SCOPE, MessageQuery.inContext());
            checkStatements += SqliteCounts.statements(fx.sqlite) - s0;
            checkReads += fx.reads.get() - r0;
            java.util.Set<String> ids = new java.util.HashSet<>();
            in.forEach(m -> m.toolCalls().forEach(c -> ids.add(c.id())));
            List<String> inStore = in.stream().filter(m -> m.toolCallId().map(ids::contains).orElse(true))
                    .map(ConversationMessage::content).toList();
            if (!prompt.equals(inStore)) {
                mismatches.add(prompt + " != " + inStore);
            }
            ToolCall call = new ToolCall("c" + (++calls), "block", "{\"operation\":\"view\",\"label\":\"human\"}");
            return new ChatResponse(new ChatMessage.Assistant("Let me check what I know.", List.of(call)),
                    ChatResponse.Usage.NONE, ChatResponse.StopReason.TOOL_CALLS);
        }
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private void trim() {
        List<ConversationMessage> in = fx.store.messages().list(SCOPE, MessageQuery.inContext().newest(1_000));
        int extra = in.size() - IN_CONTEXT;
        if (extra > 0) {
            fx.store.messages().markOutOfContext(SCOPE, in.subList(0, extra).stream().map(ConversationMessage::id).toList());
        }
    }

    @Test
    void theBenchmarksStepRunsFewStatementsAndShowsWhatTheStoreHolds() {
        fx = new CountingFixture(dir);
        Instant model = new Instant();
        AgentRuntime runtime = fx.open("bench:instant", model);
        AgentDefinition.Builder b = AgentDefinition.builder("bench-user").id("bench-agent").model("bench:instant")
                .contextWindowTokens(128_000);
        for (String label : new String[] {"human", "persona", "project", "preferences", "scratchpad"}) {
            b.block(NewBlock.builder(label).description("The " + label + " block")
                    .value(("Some facts about " + label + ". ").repeat(20)).build());
        }
        Agent agent = runtime.create(b.build());
        List<NewMessage> history = new ArrayList<>();
        for (int i = 0; i < IN_CONTEXT / 4; i++) {
            history.add(NewMessage.user("s", "Question " + i + ": what about the trip to Lisbon in May?"));
            history.add(NewMessage.assistant("s", "Looking it up.", List.of(
                    new MessageToolCall("h" + i, "search", "{\"query\":\"Lisbon trip " + i + "\"}"))));
            history.add(NewMessage.tool("s", "h" + i, "[{\"text\":\"Budget for Lisbon: 1200 EUR\"}]"));
            history.add(NewMessage.assistant("s", "Your Lisbon budget is 1200 EUR.", List.of()));
        }
        fx.store.messages().appendAll(SCOPE, history);
        for (int i = 0; i < 3; i++) { // warm: the agent has read its context and kept its parts
            agent.send("s", "warm up " + i);
            trim();
        }
        int steps = 5;
        long statements = 0;
        int readUnits = 0;
        int writeUnits = 0;
        for (int i = 0; i < steps; i++) {
            long s0 = SqliteCounts.statements(fx.sqlite) - model.checkStatements;
            int r0 = fx.reads.get() - model.checkReads;
            int w0 = fx.writes.get();
            AgentResponse r = agent.send("s", "What do you remember about me? (" + i + ")");
            assertThat(r.steps()).isEqualTo(1);
            statements += SqliteCounts.statements(fx.sqlite) - model.checkStatements - s0;
            readUnits += fx.reads.get() - model.checkReads - r0;
            writeUnits += fx.writes.get() - w0;
            trim();
        }
        System.out.printf("per step: %.1f statements, %.1f read units, %.1f write transactions%n",
                (double) statements / steps, (double) readUnits / steps, (double) writeUnits / steps);
        assertThat(model.mismatches).isEmpty();
        // the user message's transaction and the step's one
        assertThat(writeUnits).isEqualTo(2 * steps);
        assertThat(statements).isLessThanOrEqualTo(MAX_STATEMENTS * steps);
        assertThat(readUnits).isLessThanOrEqualTo(MAX_READS * steps);
    }

    /**
     * Statements per step (17 before session 17's cuts, 11 after): the change log and the statistics read (the oldest
     * in-context message with them), the user message and its change-log row, the call's record and its row, the
     * savepoint, the tool's block read and its release, the result and its row; blocks, archives and the absence of
     * folders kept.
     */
    private static final int MAX_STATEMENTS = 11;
    /** Read units per step (7 before session 17's cuts, 2 after: the change log, the statistics). */
    private static final int MAX_READS = 2;
}
