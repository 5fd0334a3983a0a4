package dev.engram.memory.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import dev.engram.memory.StorageUnavailableException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL stopped and started again under an open store and lock pool: while it is down, reads, writes and
 * locks fail within the configured timeout with a {@link StorageUnavailableException} whose message says what
 * happened (no driver class names, no URL parameters); once it is back, the same store and pool work again
 * without being reopened (within the pool's reconnect back-off, at most 5 s), and nothing acknowledged before
 * is missing. Skipped, with a message, when no
 * PostgreSQL server binaries are installed.
 */
class DatabaseRestartTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static PostgresServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PostgresServer.startOrSkip();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void whileTheDatabaseIsDownOperationsFailFastAndClearlyAndAfterItIsBackTheyWorkAgain() throws Exception {
        String url = server.jdbcUrl(server.newSchema()) + "&ApplicationName=restart-test";
        Scope ana = Scope.of("ana", "helper");
        try (MemoryStore store = MemoryStore.over(PostgresBackend.open(url, "postgres", "", 4, TIMEOUT));
                PostgresLocks locks = PostgresLocks.open(url, "postgres", "", 4, TIMEOUT)) {
            store.blocks().create(ana, NewBlock.builder("log").limit(100_000).build());
            store.blocks().appendLine(ana, "log", "before the restart");
            locks.acquire("agent-a").close();

            server.stop();
            try {
                for (Runnable op : new Runnable[] {
                        () -> store.blocks().appendLine(ana, "log", "during the outage"),
                        () -> store.blocks().get(ana, "log"),
                        () -> {
                            try {
                                locks.acquire("agent-a").close();
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                        } }) {
                    long started = System.nanoTime();
                    assertThatThrownBy(op::run).isInstanceOf(StorageUnavailableException.class)
                            .hasMessageContaining("cannot be reached").hasMessageContaining("retry")
                            .hasMessageNotContaining("ApplicationName").hasMessageNotContaining("Exception")
                            .hasMessageNotContaining("org.");
                    assertThat(Duration.ofNanos(System.nanoTime() - started)).as("failed within the timeout")
                            .isLessThan(TIMEOUT.multipliedBy(3));
                }
            } finally {
                server.startAgain();
            }

            // The pool reconnects in the background, backing off up to 5 s between attempts while the database was away.
            long back = System.nanoTime();
            while (true) {
                try {
                    store.blocks().appendLine(ana, "log", "after the restart");
                    break;
                } catch (StorageUnavailableException e) {
                    assertThat(Duration.ofNanos(System.nanoTime() - back)).as("reconnected after the restart").isLessThan(Duration.ofSeconds(10));
                }
            }
            // The lock pool is a pool of its own: it reconnects on its own schedule, within the same bound.
            while (true) {
                try (PostgresLocks.Held held = locks.acquire("agent-a")) {
                    assertThat(held).isNotNull();
                    break;
                } catch (StorageUnavailableException e) {
                    assertThat(Duration.ofNanos(System.nanoTime() - back)).as("the locks reconnected after the restart")
                            .isLessThan(Duration.ofSeconds(10));
                }
            }
            assertThat(store.blocks().get(ana, "log").orElseThrow().value().lines())
                    .containsExactly("before the restart", "after the restart");
        }
    }

    /**
     * A connection lost in the middle of a unit of work, at a store call whose failure the work caught and
     * carried on after (as an event listener's does), ends the unit as a {@link StorageUnavailableException}
     * (a server answers 503, retry), not as a rolled-back-unit error (500); nothing of the unit is kept, and
     * the store works again on the next call.
     */
    @Test
    void aConnectionLostInsideAUnitWhoseWorkCaughtTheFailureEndsAsStorageUnavailable() throws Exception {
        String app = "unit-connection-test";
        String url = server.jdbcUrl(server.newSchema()) + "&ApplicationName=" + app;
        Scope ana = Scope.of("ana", "helper");
        try (MemoryStore store = MemoryStore.over(PostgresBackend.open(url, "postgres", "", 4, TIMEOUT))) {
            store.blocks().create(ana, NewBlock.builder("log").limit(100_000).build());
            Throwable thrown = catchThrowable(() -> store.inTransaction(tx -> {
                tx.blocks().appendLine(ana, "log", "inside the unit, before the connection is lost");
                terminateConnectionsOf(app);
                try {
                    tx.blocks().appendLine(ana, "log", "after the connection is lost");
                } catch (RuntimeException caught) {
                    // carries on, as a listener's failure does not end the turn
                }
                return "carried on";
            }));
            assertThat(thrown).isInstanceOf(StorageUnavailableException.class).hasMessageContaining("cannot be reached")
                    .hasMessageContaining("retry");

            long back = System.nanoTime();
            while (true) {
                try {
                    store.blocks().appendLine(ana, "log", "after the unit");
                    break;
                } catch (StorageUnavailableException e) {
                    assertThat(Duration.ofNanos(System.nanoTime() - back)).as("the pool reconnected").isLessThan(Duration.ofSeconds(10));
                }
            }
            assertThat(store.blocks().get(ana, "log").orElseThrow().value().lines()).containsExactly("after the unit");
        }
    }

    /** Ends every server connection whose application name is {@code app}, as a database restart does. */
    private static void terminateConnectionsOf(String app) {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl("public"), "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '" + app + "'");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not end the test's connections: " + e.getMessage(), e);
        }
    }
}
