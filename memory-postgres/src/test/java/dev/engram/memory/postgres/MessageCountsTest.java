package dev.engram.memory.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStats;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.SchemaMigrations;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The message counts table of PostgreSQL's V26 ({@code message_counts}, kept by triggers as SQLite's V3): the statistics
 * read it instead of counting a scope's messages, so it must equal the count in every case: rows written before the
 * migration, writes of two backends on one database at once (and of connections that take no Engram lock), a write
 * or a part of a unit of work that is rolled back. Skipped, with a message, when no PostgreSQL server binaries are
 * installed.
 */
class MessageCountsTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope BEN = Scope.of("ben", "helper");
    private static PostgresServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PostgresServer.sharedOrSkip();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private static List<NewMessage> messages(String prefix, int n) {
        List<NewMessage> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(NewMessage.user("s", prefix + " " + i));
        }
        return out;
    }

    /** What a count over the scope's messages gives: total, in context, newest time (micros, or -1), oldest in context (or -1). */
    private static long[] counted(String url, Scope s) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*), count(*) FILTER (WHERE in_context), coalesce(max(created_at), -1), "
                        + "coalesce(min(id) FILTER (WHERE in_context), -1) FROM messages WHERE user_id = '" + s.userId()
                        + "' AND agent_id = '" + s.agentId() + "'")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)};
        }
    }

    private static void assertExact(PostgresBackend backend, String url, Scope s) throws Exception {
        MemoryStats stats = backend.read(rows -> rows.stats(s));
        long[] c = counted(url, s);
        assertThat(stats.messages()).isEqualTo(c[0]);
        assertThat(stats.messagesInContext()).isEqualTo(c[1]);
        assertThat(stats.lastMessageAt().map(dev.engram.memory.spi.Columns::micros)).isEqualTo(
                c[2] < 0 ? Optional.empty() : Optional.of(c[2]));
        assertThat(stats.firstInContextId()).isEqualTo(c[3] < 0 ? OptionalLong.empty() : OptionalLong.of(c[3]));
    }

    @Test
    void theMigrationCountsTheMessagesWrittenBeforeIt() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        Flyway.configure(PostgresBackend.class.getClassLoader())
                .dataSource(url, "postgres", "").locations(PostgresBackend.MIGRATIONS).table(SchemaMigrations.HISTORY_TABLE)
                .target("25").load().migrate();
        try (Connection c = DriverManager.getConnection(url, "postgres", ""); Statement st = c.createStatement()) {
            st.execute("INSERT INTO messages (user_id, agent_id, session_id, role, content, created_at, in_context) "
                    + "SELECT 'ana', 'helper', 's', 'USER', 'old ' || i, 1000 + i, i > 3 FROM generate_series(1, 10) i");
            st.execute("INSERT INTO messages (user_id, agent_id, session_id, role, content, created_at, in_context) "
                    + "VALUES ('ben', 'helper', 's', 'USER', 'one', 7, FALSE)");
        }
        try (PostgresBackend backend = PostgresBackend.open(url, "postgres", "")) {
            MemoryStats ana = backend.read(rows -> rows.stats(ANA));
            assertThat(ana.messages()).isEqualTo(10);
            assertThat(ana.messagesInContext()).isEqualTo(7);
            assertThat(ana.lastMessageAt()).contains(dev.engram.memory.spi.Columns.instant(1010));
            assertExact(backend, url, ANA);
            MemoryStats ben = backend.read(rows -> rows.stats(BEN));
            assertThat(ben.messages()).isEqualTo(1);
            assertThat(ben.messagesInContext()).isZero();
            assertThat(ben.firstInContextId()).isEmpty();
            assertExact(backend, url, BEN);
            MemoryStats none = backend.read(rows -> rows.stats(Scope.of("cy", "helper")));
            assertThat(none.messages()).isZero();
            assertThat(none.lastMessageAt()).isEmpty();
            // and the triggers keep them from there on
            backend.write(rows -> rows.insertMessages(ANA, messages("new", 3), Instant.now()));
            assertThat(backend.read(rows -> rows.stats(ANA)).messages()).isEqualTo(13);
            assertExact(backend, url, ANA);
        }
    }

    @Test
    void aRolledBackWriteOrPartLeavesTheCountsAsTheyWere() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend backend = PostgresBackend.open(url, "postgres", "")) {
            List<ConversationMessage> kept = backend.write(rows -> rows.insertMessages(ANA, messages("kept", 4), Instant.now()));
            assertThatThrownBy(() -> backend.write(rows -> {
                rows.insertMessages(ANA, messages("lost", 5), Instant.now());
                rows.markOutOfContext(ANA, List.of(kept.get(0).id(), kept.get(1).id()));
                throw new IllegalStateException("the step failed");
            })).isInstanceOf(IllegalStateException.class);
            assertThat(backend.read(rows -> rows.stats(ANA)).messages()).isEqualTo(4);
            assertThat(backend.read(rows -> rows.stats(ANA)).messagesInContext()).isEqualTo(4);
            // a unit of work whose part is undone keeps only what the rest wrote
            backend.writeUnit(rows -> {
                rows.insertMessages(ANA, messages("unit", 2), Instant.now());
                boolean keptPart = rows.savepoint(() -> {
                    rows.insertMessages(ANA, messages("undone", 3), Instant.now());
                    rows.markOutOfContext(ANA, List.of(kept.get(0).id()));
                    return false;
                });
                assertThat(keptPart).isFalse();
                rows.markOutOfContext(ANA, List.of(kept.get(1).id()));
                return null;
            });
            MemoryStats stats = backend.read(rows -> rows.stats(ANA));
            assertThat(stats.messages()).isEqualTo(6);
            assertThat(stats.messagesInContext()).isEqualTo(5);
            assertThat(stats.firstInContextId()).hasValue(kept.get(0).id());
            assertExact(backend, url, ANA);
        }
    }

    @Test
    void twoBackendsAndUnlockedConnectionsWritingAtOnceKeepTheCountsExact() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend a = PostgresBackend.open(url, "postgres", "", 4);
                PostgresBackend b = PostgresBackend.open(url, "postgres", "", 4);
                ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                PostgresBackend backend = t % 2 == 0 ? a : b;
                Scope scope = t % 3 == 0 ? BEN : ANA;
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        int n = 1 + (i % 3);
                        List<ConversationMessage> in = backend.write(rows -> rows.insertMessages(scope, messages("t" + thread, n),
                                Instant.now()));
                        if (i % 4 == 0) {
                            backend.write(rows -> rows.markOutOfContext(scope, List.of(in.getFirst().id())));
                        }
                        if (i % 5 == 0) { // a write that fails after inserting: rolled back, counted nowhere
                            try {
                                backend.write(rows -> {
                                    rows.insertMessages(scope, messages("fails", 2), Instant.now());
                                    throw new IllegalStateException("no");
                                });
                            } catch (IllegalStateException expected) {
                                // rolled back
                            }
                        }
                    }
                    return null;
                }));
            }
            for (int t = 0; t < 2; t++) { // plain connections, no advisory lock: only the row lock of the counts orders them
                done.add(pool.submit(() -> {
                    try (Connection c = DriverManager.getConnection(url, "postgres", ""); Statement st = c.createStatement()) {
                        for (int i = 0; i < 30; i++) {
                            st.execute("INSERT INTO messages (user_id, agent_id, session_id, role, content, created_at, in_context) "
                                    + "VALUES ('ana', 'helper', 's', 'USER', 'raw', " + (5_000_000 + i) + ", " + (i % 2 == 0) + ")");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            int perThread = 0;
            for (int i = 0; i < 20; i++) {
                perThread += 1 + (i % 3);
            }
            assertThat(counted(url, ANA)[0]).isEqualTo(4L * perThread + 2 * 30);
            assertExact(a, url, ANA);
            assertExact(b, url, BEN);
        }
    }
}
