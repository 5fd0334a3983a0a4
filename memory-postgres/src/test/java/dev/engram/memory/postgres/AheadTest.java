package dev.engram.memory.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.Block;
import dev.engram.memory.BlockType;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.Scope;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Statements held back to travel with a write's next statement ({@link Ahead}): a lock and a savepoint go in one round
 * trip with the statement behind them and still take effect before it; when one of a combined round trip's statements
 * fails, none after it runs and the write keeps nothing; a savepoint still held when its part is undone or released is
 * simply never sent. Skipped, with a message, when no PostgreSQL server binaries are installed.
 */
class AheadTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static PostgresServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PostgresServer.sharedOrSkip(); // the cluster shared by the test JVM: nothing to close
    }

    private static Block block(String label) {
        Instant now = Instant.now();
        return new Block(label, "", "v", 100, BlockType.CORE, MemoryPermission.READ_WRITE, false, 1, ANA.agentId(), now, now);
    }

    private static java.util.List<Block> blocks(PostgresBackend backend) {
        return backend.read(rows -> rows.blocks(ANA));
    }

    private static long count(Connection c, String sql) throws Exception {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void heldStatementsRunBeforeTheNextOneInTheSameRoundTripAndTheirResultsAreSkipped() throws Exception {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(server.newSchema()), "postgres", "");
                Connection other = DriverManager.getConnection(server.jdbcUrl("public"), "postgres", "")) {
            c.setAutoCommit(false);
            Statements.exec(c, "CREATE TABLE t (x INT)");
            Ahead ahead = new Ahead();
            ahead.add("SELECT pg_advisory_xact_lock(?)", 4242L);
            ahead.savepoint("p");
            assertThat(Statements.exec(c, ahead, "INSERT INTO t VALUES (?), (?)", 1, 2)).isEqualTo(2);
            assertThat(ahead.isEmpty()).isTrue();
            // the lock was taken by the same round trip, and is held by this transaction
            assertThat(count(other, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND granted"))
                    .isEqualTo(1);
            ahead.add("SELECT pg_advisory_xact_lock(?, ?)", 1, 2);
            assertThat(Statements.query(c, ahead, "SELECT sum(x) FROM t", (rs, ctx) -> rs.getLong(1))).containsExactly(3L);
            // rolled back to the savepoint sent before: the rows after it are gone
            ahead.rollbackTo(c, "p", true);
            assertThat(Statements.query(c, ahead, "SELECT count(*) FROM t", (rs, ctx) -> rs.getLong(1))).containsExactly(0L);
            c.rollback();
        }
    }

    @Test
    void aSavepointStillHeldIsDroppedWhenItsPartIsUndoneOrReleasedAndTheStatementsBeforeItStay() throws Exception {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(server.newSchema()), "postgres", "")) {
            c.setAutoCommit(false);
            Statements.exec(c, "CREATE TABLE t (x INT)");
            Ahead ahead = new Ahead();
            ahead.add("INSERT INTO t VALUES (?)", 1); // stands for a lock: what came before the savepoint
            ahead.savepoint("p");
            ahead.add("INSERT INTO t VALUES (?)", 2);
            ahead.rollbackTo(c, "p", true); // nothing after the savepoint was sent: nothing to send now
            ahead.savepoint("q");
            ahead.release("q");
            assertThat(Statements.query(c, ahead, "SELECT array_agg(x ORDER BY x)::text FROM t", (rs, ctx) -> rs.getString(1)))
                    .containsExactly("{1}");
            // a release of a savepoint already sent is held, and sent with the next statement
            ahead.savepoint("r");
            Statements.exec(c, ahead, "INSERT INTO t VALUES (?)", 3);
            ahead.release("r");
            assertThat(ahead.isEmpty()).isFalse();
            assertThatThrownBy(() -> Statements.exec(c, ahead, "ROLLBACK TO SAVEPOINT r"))
                    .isInstanceOf(UnableToExecuteStatementException.class).hasMessageContaining("savepoint");
            c.rollback();
        }
    }

    @Test
    void whenTheHeldLockFailsTheWriteBehindItIsNotRunAndNothingIsKept() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend backend = PostgresBackend.open(url + "&options=-c%20lock_timeout%3D300", "postgres", "");
                Connection holder = DriverManager.getConnection(url, "postgres", "")) {
            backend.write(rows -> rows.agent(ANA)); // migrated; ana's lock taken and released once
            holder.setAutoCommit(false);
            try (Statement st = holder.createStatement()) {
                st.execute("SELECT pg_advisory_xact_lock(" + WriteLocks.USER_SPACE + ", " + "ana".hashCode() + ")");
            }
            // The write's lock and its insert go in one round trip: the lock times out, the insert never runs.
            assertThatThrownBy(() -> backend.write(rows -> {
                rows.insertBlock(ANA, block("held"));
                return null;
            })).isInstanceOf(UnableToExecuteStatementException.class).hasMessageContaining("lock timeout")
                    .hasMessageContaining("pg_advisory_xact_lock(?, ?); INSERT INTO blocks");
            holder.rollback();
            assertThat(blocks(backend)).isEmpty();
            backend.write(rows -> {
                rows.insertBlock(ANA, block("after"));
                return null;
            });
            assertThat(blocks(backend)).extracting(Block::label).containsExactly("after");
        }
    }

    @Test
    void whenTheStatementBehindTheLockFailsTheWriteKeepsNothingAndTheNextWriteOfTheUserRuns() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend backend = PostgresBackend.open(url, "postgres", "")) {
            assertThatThrownBy(() -> backend.write(rows -> {
                rows.insertBlock(ANA, block("twice")); // sent with BEGIN and the lock
                rows.insertBlock(ANA, block("twice")); // a duplicate: fails
                return null;
            })).isInstanceOf(RuntimeException.class);
            assertThat(blocks(backend)).isEmpty();
            backend.write(rows -> {
                rows.insertBlock(ANA, block("once"));
                return null;
            });
            assertThat(blocks(backend)).extracting(Block::label).containsExactly("once");
        }
    }
}
