package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentRuntime;
import dev.engram.framework.AiTool;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.BlockStore;
import dev.engram.memory.ChangeEvent;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import dev.engram.memory.ToolOutcome;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.postgres.PostgresBackend;
import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.spi.Rows;
import dev.engram.memory.postgres.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A step whose calls all run inline is one PostgreSQL transaction, as on SQLite (PostgreSQL has savepoints, so {@link
 * MemoryStore#supportsAttempts()}): the call's record, what the tools wrote and their results commit together (one
 * write transaction for the step), and a tool that writes and then fails leaves nothing of its write, neither the row
 * nor a change-log event, while the step's other call and its records stay. Skipped, with a message, when no
 * PostgreSQL server binaries are installed.
 */
class PostgresOneUnitStepTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static PostgresServer postgres;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        postgres = PostgresServer.startOrSkip();
    }

    @AfterAll
    static void stop() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    record Nothing(Optional<String> note) {
    }

    /** The PostgreSQL backend, counting its write transactions (plain writes and units of work). */
    private record Counting(PostgresBackend postgres, AtomicInteger writes) implements MemoryBackend {
        @Override
        public <T> T write(Function<Rows, T> work) {
            writes.incrementAndGet();
            return postgres.write(work);
        }

        @Override
        public <T> T writeUnit(Function<Rows, T> work) {
            writes.incrementAndGet();
            return postgres.writeUnit(work);
        }

        @Override
        public <T> T read(Function<Rows, T> work) {
            return postgres.read(work);
        }

        @Override
        public boolean savepoints() {
            return postgres.savepoints();
        }

        @Override
        public void close() {
            postgres.close();
        }
    }

    /** Writes in the notes block, then throws; runs inline (inside the step's transaction). */
    private record Scribble(MemoryStore store) implements AiTool<Nothing, String> {
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
            store.blocks().replace(ANA, "notes", "half-written", BlockStore.ANY_VERSION);
            throw new ToolException("The notes could not be finished.");
        }
    }

    @Test
    void aToolThatFailsAfterWritingLeavesNothingWhileTheStepsOtherCallAndRecordsCommitAsOneTransaction() throws Exception {
        String url = postgres.jdbcUrl(postgres.newSchema());
        ScriptedChatModel model = ScriptedChatModel.fromJson("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Ana"}},
                                  {"name": "scribble", "arguments": {}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Done."}}]}
                ]}""");
        AtomicInteger writes = new AtomicInteger();
        try (MemoryStore store = MemoryStore.over(new Counting(PostgresBackend.open(url, "postgres", ""), writes));
                MemorySearch search = LuceneMemorySearch.builder(store, ServerFixture.sharedEmbedder())
                        .directory(dir.resolve("index")).backgroundInterval(Duration.ZERO).build();
                AgentRuntime runtime = AgentRuntime.builder(store, search).model("script:test", model)
                        .tool(new Scribble(store)).build()) {
            assertThat(store.supportsAttempts()).isTrue();
            runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test")
                    .block(NewBlock.builder("human").value("").limit(1000).build())
                    .block(NewBlock.builder("notes").value("clean").limit(1000).build())
                    .tools("block", "send_message", "scribble").approvalMode(ApprovalMode.YOLO).build());
            long seq = store.changes().lastSeq();
            writes.set(0);

            AgentResponse r = runtime.agent("ana", "helper").send("Take notes.");

            assertThat(r.reply()).contains("Done.");
            assertThat(store.blocks().get(ANA, "notes").orElseThrow().value()).isEqualTo("clean");
            assertThat(store.blocks().get(ANA, "human").orElseThrow().value()).isEqualTo("Ana");
            List<ConversationMessage> stored = store.messages().list(ANA, MessageQuery.all());
            assertThat(stored).extracting(ConversationMessage::role).extracting(Enum::name).containsExactly(
                    "USER", "ASSISTANT", "TOOL", "TOOL", "ASSISTANT", "TOOL");
            assertThat(stored.get(1).toolCalls()).extracting(c -> c.name()).containsExactly("block", "scribble");
            assertThat(stored.get(2).toolOutcome().orElseThrow().status()).isEqualTo(ToolOutcome.Status.OK);
            assertThat(stored.get(3).toolOutcome().orElseThrow().status()).isEqualTo(ToolOutcome.Status.ERROR);
            assertThat(stored.get(3).content()).contains("The notes could not be finished.");
            // nothing of the failed call's write reached the change log: only the human block changed
            assertThat(store.changes().since(seq, 1000)).filteredOn(e -> e.entity() == ChangeEvent.Entity.BLOCK)
                    .hasSize(1);
            // The user message (1), the block step in one transaction (1: the calls' record, the block's new value,
            // the failed call's undone write and both results), and the send_message step as before (2: that tool may
            // wait for another agent, so it does not run inline): the block's write made no transaction of its own.
            assertThat(writes.get()).isEqualTo(4);
            // The calls' record and both results carry one transaction id (the block's row was written inside the
            // call's savepoint, a subtransaction with an id of its own, and committed with them).
            Set<Long> transactions = new HashSet<>();
            try (Connection c = DriverManager.getConnection(url, "postgres", ""); Statement st = c.createStatement();
                    ResultSet rs = st.executeQuery("SELECT xmin::text::bigint FROM messages WHERE id IN (" + stored.get(1).id()
                            + ", " + stored.get(2).id() + ", " + stored.get(3).id() + ")")) {
                while (rs.next()) {
                    transactions.add(rs.getLong(1));
                }
            }
            assertThat(transactions).hasSize(1);
        }
    }
}
