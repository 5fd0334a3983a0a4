package dev.engram.memory.sqlite;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.BlockStore;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Note;
import dev.engram.memory.SchemaVersionException;
import dev.engram.memory.Scope;
import dev.engram.memory.SqliteOptions;
import dev.engram.memory.ToolOutcome;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What is particular to the SQLite store: the file, its settings, its schema version, reopening. */
class SqliteBackendTest {
    @TempDir
    Path dir;

    private static final Scope ANA = Scope.of("ana", "helper");

    @Test
    void everythingSurvivesAReopen() {
        Path file = dir.resolve("nested/dirs/memory.db");
        ArchivalEntry entry;
        Note note;
        try (MemoryStore store = MemoryStore.sqlite(file)) {
            store.blocks().create(ANA, NewBlock.builder("human").value("Ana").build());
            store.blocks().append(ANA, "human", ", likes tea", BlockStore.ANY_VERSION);
            entry = store.archival().insert(ANA, NewArchivalEntry.labelled("trip", "Lisbon", List.of("travel")));
            note = store.notes().save("ana", "mornings");
            store.messages().append(ANA, NewMessage.user("s", "hello"));
        }
        assertThat(file).exists();
        try (MemoryStore store = MemoryStore.sqlite(file)) {
            assertThat(store.blocks().get(ANA, "human").orElseThrow().value()).isEqualTo("Ana, likes tea");
            assertThat(store.blocks().history(ANA, "human")).hasSize(2);
            assertThat(store.archival().get(ANA, entry.id())).contains(entry);
            assertThat(store.notes().get("ana", note.id())).contains(note);
            assertThat(store.messages().count(ANA)).isEqualTo(1);
            assertThat(store.changes().lastSeq()).isEqualTo(5);
        }
    }

    @Test
    void fileIsInWalModeWithForeignKeysAndIntegrity() throws Exception {
        Path file = dir.resolve("memory.db");
        try (MemoryStore store = MemoryStore.sqlite(file)) {
            SqliteBackend backend = (SqliteBackend) store.backend();
            store.blocks().create(ANA, NewBlock.builder("human").build());
            assertThat(backend.integrityCheck()).isEqualTo("ok");
            assertThat(backend.<String>withHandle(h -> h.createQuery("PRAGMA journal_mode").mapTo(String.class).one())).isEqualTo("wal");
            assertThat(backend.<Integer>withHandle(h -> h.createQuery("PRAGMA foreign_keys").mapTo(Integer.class).one())).isEqualTo(1);
            assertThat(backend.<Integer>withHandle(h -> h.createQuery("PRAGMA busy_timeout").mapTo(Integer.class).one())).isEqualTo(5000);
        }
    }

    @Test
    void powerLossDurabilityUsesFullSync() {
        SqliteOptions options = SqliteOptions.builder(dir.resolve("m.db")).durability(SqliteOptions.Durability.POWER_LOSS).build();
        try (MemoryStore store = MemoryStore.sqlite(options)) {
            SqliteBackend backend = (SqliteBackend) store.backend();
            assertThat(backend.<Integer>withHandle(h -> h.createQuery("PRAGMA synchronous").mapTo(Integer.class).one())).isEqualTo(2);
        }
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("n.db"))) {
            SqliteBackend backend = (SqliteBackend) store.backend();
            assertThat(backend.<Integer>withHandle(h -> h.createQuery("PRAGMA synchronous").mapTo(Integer.class).one())).isEqualTo(1);
        }
    }

    @Test
    void theSchemaVersionIsTheHighestMigrationAndACurrentDatabaseOpensWithoutFlyway() throws Exception {
        java.net.URL migrations = SqliteBackend.class.getClassLoader().getResource(SqliteBackend.MIGRATIONS.substring("classpath:".length()));
        try (var files = Files.list(Path.of(migrations.toURI()))) {
            int highest = files.map(f -> f.getFileName().toString()).filter(n -> n.matches("V\\d+__.*\\.sql"))
                    .mapToInt(n -> Integer.parseInt(n.substring(1, n.indexOf("__")))).max().orElseThrow();
            assertThat(SqliteBackend.SCHEMA_VERSION).isEqualTo(highest);
        }
        Path file = dir.resolve("current.db");
        MemoryStore.sqlite(file).close();
        try (MemoryStore again = MemoryStore.sqlite(file)) {
            assertThat(again.keys().list()).isEmpty(); // the latest tables are there
        }
    }

    @Test
    void aDatabaseFromANewerSchemaIsRefusedAndLeftUnchanged() throws Exception {
        Path file = dir.resolve("memory.db");
        MemoryStore.sqlite(file).close();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + SqliteBackend.HISTORY_TABLE + " (installed_rank, version, description, type, script,"
                    + " checksum, installed_by, execution_time, success) VALUES (99, '99', 'from the future', 'SQL',"
                    + " 'V99__future.sql', 0, 'test', 0, 1)");
        }
        long sizeBefore = Files.size(file);
        assertThatThrownBy(() -> MemoryStore.sqlite(file))
                .isInstanceOf(SchemaVersionException.class)
                .hasMessage("Memory database " + file.toAbsolutePath() + " was written by a newer Engram (schema version 99); "
                        + "this version understands up to schema version " + SqliteBackend.SCHEMA_VERSION + ". Upgrade Engram to open it. "
                        + "The database was not changed.");
        assertThat(Files.size(file)).isEqualTo(sizeBefore);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM " + SqliteBackend.HISTORY_TABLE)) {
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(28); // versions 1 to 27, and the newer one
        }
    }

    @Test
    void toolMessagesOfAnOlderSchemaGetTheirStatusAndTheirMessagesToTheUser() throws Exception {
        Path file = dir.resolve("v7.db");
        org.flywaydb.core.Flyway.configure(SqliteBackend.class.getClassLoader()).dataSource("jdbc:sqlite:" + file, null, null)
                .locations(SqliteBackend.MIGRATIONS).table(SqliteBackend.HISTORY_TABLE).target("7").load().migrate();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            String insert = "INSERT INTO messages (user_id, agent_id, session_id, role, content, tool_calls, tool_call_id, "
                    + "created_at, in_context) VALUES ";
            s.execute(insert + "('ana', 'a1', 's', 'ASSISTANT', '', '[{\"id\":\"c1\",\"name\":\"send_message\","
                    + "\"arguments\":\"{\\\"message\\\":\\\"hi\\\"}\"},{\"id\":\"c2\",\"name\":\"send_message\","
                    + "\"arguments\":\"{\\\"message\\\":\\\"psst\\\",\\\"target_agent_id\\\":\\\"a2\\\"}\"},"
                    + "{\"id\":\"c3\",\"name\":\"block\",\"arguments\":\"not json\"}]', NULL, 1, 1)");
            s.execute(insert + "('ana', 'a1', 's', 'TOOL', '{\"success\": true}', NULL, 'c1', 2, 1)");
            s.execute(insert + "('ana', 'a1', 's', 'TOOL', '{\"success\": true}', NULL, 'c2', 2, 1)");
            s.execute(insert + "('ana', 'a1', 's', 'TOOL', 'Error: no block named x', NULL, 'c3', 2, 1)");
        }

        try (MemoryStore store = MemoryStore.sqlite(file)) {
            List<ConversationMessage> stored = store.messages().list(Scope.of("ana", "a1"), MessageQuery.all());
            assertThat(stored.getFirst().toolOutcome()).isEmpty();
            assertThat(stored.subList(1, 4)).extracting(m -> m.toolOutcome().orElseThrow()).containsExactly(
                    ToolOutcome.of(ToolOutcome.Status.OK, ToolOutcome.Effect.MESSAGE_TO_USER),
                    ToolOutcome.OK,
                    ToolOutcome.of(ToolOutcome.Status.ERROR));
        }
    }

    @Test
    void assistantMessagesOfTheSchemaBeforeReasoningReadBackWithoutReasoning() throws Exception {
        Path file = dir.resolve("v18.db");
        org.flywaydb.core.Flyway.configure(SqliteBackend.class.getClassLoader()).dataSource("jdbc:sqlite:" + file, null, null)
                .locations(SqliteBackend.MIGRATIONS).table(SqliteBackend.HISTORY_TABLE).target("18").load().migrate();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.execute("INSERT INTO messages (user_id, agent_id, session_id, role, content, tool_calls, tool_call_id, created_at, "
                    + "in_context) VALUES ('ana', 'a1', 's', 'ASSISTANT', 'Thinking aloud.', '[{\"id\":\"c1\",\"name\":\"x\","
                    + "\"arguments\":\"{}\"}]', NULL, 1, 1)");
        }

        try (MemoryStore store = MemoryStore.sqlite(file)) {
            ConversationMessage old = store.messages().list(Scope.of("ana", "a1"), MessageQuery.all()).getFirst();
            assertThat(old.content()).isEqualTo("Thinking aloud.");
            assertThat(old.reasoning()).isEqualTo(MessageReasoning.NONE);
        }
    }

    @Test
    void notesAndArchivalEntriesOfTheSchemaBeforeMetadataBecomeCurrentFactsWithoutMetadata() throws Exception {
        Path file = dir.resolve("v13.db");
        org.flywaydb.core.Flyway.configure(SqliteBackend.class.getClassLoader()).dataSource("jdbc:sqlite:" + file, null, null)
                .locations(SqliteBackend.MIGRATIONS).table(SqliteBackend.HISTORY_TABLE).target("13").load().migrate();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.execute("INSERT INTO notes (id, user_id, content, created_at, updated_at) VALUES ('note-1', 'ana', 'Likes tea', 1, 2)");
            s.execute("INSERT INTO archival (id, user_id, agent_id, label, content, tags, created_at, updated_at) "
                    + "VALUES ('archival-1', 'ana', 'a1', 'home', 'Lives in Lisbon', '[\"city\"]', 3, 4)");
        }
        try (MemoryStore store = MemoryStore.sqlite(file)) {
            Note note = store.notes().get("ana", "note-1").orElseThrow();
            assertThat(note.metadata()).isEqualTo(dev.engram.memory.Metadata.empty());
            assertThat(note.isCurrent()).isTrue();
            assertThat(store.notes().list("ana", 0, 10)).containsExactly(note);
            ArchivalEntry entry = store.archival().getByLabel(Scope.of("ana", "a1"), "home").orElseThrow();
            assertThat(entry.tags()).containsExactly("city");
            assertThat(entry.supersedes()).isEmpty();
            ArchivalEntry porto = store.archival().supersede(Scope.of("ana", "a1"), entry.id(), NewArchivalEntry.of("Lives in Porto"));
            assertThat(store.archival().history(Scope.of("ana", "a1"), porto.id())).extracting(ArchivalEntry::content)
                    .containsExactly("Lives in Lisbon", "Lives in Porto");
        }
    }

    @Test
    void aFileThatIsNotADatabaseGivesAClearError() throws Exception {
        Path file = dir.resolve("not-a-db.db");
        Files.writeString(file, "this is a text file, not SQLite, and it is long enough to have a header".repeat(10));
        assertThatThrownBy(() -> MemoryStore.sqlite(file)).isInstanceOf(MemoryException.class)
                .hasMessageStartingWith("Cannot prepare memory database " + file.toAbsolutePath());
    }

    @Test
    void optionsAreValidatedWhenBuilt() {
        assertThatThrownBy(() -> SqliteOptions.builder(dir).readers(0).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("readers must be between 1 and 64, got 0");
        assertThatThrownBy(() -> SqliteOptions.builder(dir).busyTimeout(Duration.ofSeconds(-1)).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void twoStoresOnOneFileSeeEachOthersWrites() {
        Path file = dir.resolve("shared.db");
        try (MemoryStore a = MemoryStore.sqlite(file); MemoryStore b = MemoryStore.sqlite(file)) {
            a.notes().save("ana", "from a");
            b.notes().save("ana", "from b");
            assertThat(a.notes().count("ana")).isEqualTo(2);
            assertThat(b.changes().lastSeq()).isEqualTo(2);
        }
    }

    @Test
    void theStatisticsNameTheOldestMessageStillInTheContext() {
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("m.db"))) {
            Scope ana = Scope.of("ana", "helper");
            assertThat(store.stats(ana).firstInContextId()).isEmpty();
            List<ConversationMessage> m = store.messages().appendAll(ana, List.of(NewMessage.user("s", "one"),
                    NewMessage.user("s", "two"), NewMessage.user("s", "three")));
            store.messages().append(Scope.of("ana", "other"), NewMessage.user("s", "another agent's"));
            assertThat(store.stats(ana).firstInContextId()).hasValue(m.get(0).id());
            store.messages().markOutOfContext(ana, List.of(m.get(0).id()));
            assertThat(store.stats(ana).firstInContextId()).hasValue(m.get(1).id());
            store.messages().markOutOfContext(ana, List.of(m.get(1).id(), m.get(2).id()));
            assertThat(store.stats(ana).firstInContextId()).isEmpty();
            assertThat(store.stats(ana).messages()).isEqualTo(3);
        }
    }
}
