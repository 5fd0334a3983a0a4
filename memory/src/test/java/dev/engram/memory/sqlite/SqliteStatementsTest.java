package dev.engram.memory.sqlite;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import dev.engram.memory.SqliteOptions;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SQLite backend keeps its prepared statements per connection and uses them again, safely. */
class SqliteStatementsTest {
    private static final Scope ANA = Scope.of("ana", "helper");

    @TempDir
    Path dir;

    @Test
    void aStatementIsPreparedOnceAndThenTakenFromTheConnectionsCache() {
        try (MemoryStore store = MemoryStore.sqlite(SqliteOptions.builder(dir.resolve("m.db")).readers(1).build())) {
            SqliteStatements statements = ((SqliteBackend) store.backend()).statements();
            store.messages().append(ANA, NewMessage.user("s", "first"));
            store.messages().list(ANA, MessageQuery.inContext().newest(10));
            long prepared = statements.prepared();
            for (int i = 0; i < 20; i++) {
                store.messages().append(ANA, NewMessage.user("s", "again " + i));
                assertThat(store.messages().list(ANA, MessageQuery.inContext().newest(100))).hasSize(i + 2);
            }
            assertThat(statements.prepared()).isEqualTo(prepared);
            assertThat(statements.kept()).isPositive();
        }
    }

    @Test
    void aKeptStatementHoldsNoReadTransactionOpenSoTheLogCanBeCheckpointedWhole() throws Exception {
        Path file = dir.resolve("m.db");
        try (MemoryStore store = MemoryStore.sqlite(SqliteOptions.builder(file).readers(2).build())) {
            store.blocks().create(ANA, NewBlock.builder("human").value("Ana").build());
            for (int i = 0; i < 5; i++) {
                store.messages().append(ANA, NewMessage.user("s", "m" + i));
            }
            // Reads that stop before the last row (one of many) and reads that run to the end, on every reader.
            for (int i = 0; i < 4; i++) {
                store.messages().list(ANA, MessageQuery.inContext().newest(1));
                store.messages().list(ANA, MessageQuery.inContext().withLimit(1));
                store.blocks().get(ANA, "human");
                store.messages().list(ANA, MessageQuery.inContext().newest(100));
            }
            store.messages().append(ANA, NewMessage.user("s", "after"));
            try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + file);
                    Statement s = other.createStatement();
                    ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).as("checkpoint blocked by a reader").isZero();
            }
            assertThat(Files.size(dir.resolve("m.db-wal"))).isZero();
            assertThat(store.messages().list(ANA, MessageQuery.inContext().newest(100))).extracting(ConversationMessage::content)
                    .containsExactly("m0", "m1", "m2", "m3", "m4", "after");
        }
    }

    @Test
    void twoStatementsOfTheSameTextOpenAtOnceAreTwoStatements() {
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("m.db"))) {
            for (int i = 0; i < 3; i++) {
                store.messages().append(ANA, NewMessage.user("s", "m" + i));
            }
            SqliteBackend backend = (SqliteBackend) store.backend();
            String sql = "SELECT content FROM messages ORDER BY id";
            List<String> pairs = backend.withHandle(h -> {
                List<String> out = new ArrayList<>();
                try (Stream<String> outer = h.createQuery(sql).mapTo(String.class).stream()) {
                    Iterator<String> it = outer.iterator();
                    while (it.hasNext()) {
                        String a = it.next();
                        out.add(a + ":" + String.join(",", h.createQuery(sql).mapTo(String.class).list()));
                    }
                }
                return out;
            });
            assertThat(pairs).containsExactly("m0:m0,m1,m2", "m1:m0,m1,m2", "m2:m0,m1,m2");
            // Used again afterwards, with the right rows.
            assertThat(backend.<List<String>>withHandle(h -> h.createQuery(sql).mapTo(String.class).list()))
                    .containsExactly("m0", "m1", "m2");
        }
    }

    @Test
    void aStoreClosedWithKeptStatementsReopensWithEverythingWritten() {
        Path file = dir.resolve("m.db");
        try (MemoryStore store = MemoryStore.sqlite(file)) {
            store.messages().append(ANA, NewMessage.user("s", "kept"));
            store.messages().list(ANA, MessageQuery.inContext().newest(10));
            assertThat(((SqliteBackend) store.backend()).statements().kept()).isPositive();
        }
        try (MemoryStore store = MemoryStore.sqlite(file)) {
            assertThat(store.messages().list(ANA, MessageQuery.inContext().newest(10))).extracting(ConversationMessage::content)
                    .containsExactly("kept");
            assertThat(((SqliteBackend) store.backend()).integrityCheck()).isEqualTo("ok");
        }
    }
}
