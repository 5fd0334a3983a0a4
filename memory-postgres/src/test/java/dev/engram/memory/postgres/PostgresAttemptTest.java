package dev.engram.memory.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.Attempt;
import dev.engram.memory.BlockStore;
import dev.engram.memory.ChangeEvent;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.NotFoundException;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.Rows;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Part of a unit of work undone alone on PostgreSQL ({@link MemoryStore#attempt} over a {@code SAVEPOINT}), as {@code
 * AttemptTest} checks it on SQLite: what an undone part wrote leaves no row and no change-log event, the rest of the
 * unit commits, a failed statement inside a part does not spoil the transaction, and the locks an undone part took
 * (which PostgreSQL releases with it) are taken again when a later write needs them. Skipped, with a message, when no
 * PostgreSQL server binaries are installed.
 */
class PostgresAttemptTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static PostgresServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PostgresServer.sharedOrSkip(); // every test works in a schema of its own
    }

    private static List<String> contents(MemoryStore store) {
        return store.messages().list(ANA, MessageQuery.all()).stream().map(ConversationMessage::content).toList();
    }

    @Test
    void keptPartsCommitWithTheUnitAndUndoneOnesLeaveNoRowAndNoEvent() {
        try (MemoryStore store = MemoryStore.over(PostgresBackend.open(server.jdbcUrl(server.newSchema()), "postgres", ""))) {
            assertThat(store.supportsAttempts()).isTrue();
            store.blocks().create(ANA, NewBlock.builder("human").value("Ana").limit(100).build());
            long seq = store.changes().lastSeq();
            Attempt<String> undone = store.inTransaction(tx -> {
                tx.messages().append(ANA, NewMessage.user("s", "before"));
                assertThat(tx.attempt(() -> tx.messages().append(ANA, NewMessage.user("s", "kept")).content(), r -> true)
                        .kept()).isTrue();
                Attempt<String> failed = tx.attempt(() -> {
                    tx.messages().append(ANA, NewMessage.user("s", "half-done"));
                    tx.blocks().replace(ANA, "human", "half-done", BlockStore.ANY_VERSION);
                    return "failed";
                }, r -> !r.equals("failed"));
                tx.messages().append(ANA, NewMessage.user("s", "after"));
                return failed;
            });
            assertThat(undone.kept()).isFalse();
            assertThat(contents(store)).containsExactly("before", "kept", "after");
            assertThat(store.blocks().get(ANA, "human").orElseThrow().value()).isEqualTo("Ana");
            assertThat(store.changes().since(seq, 100)).hasSize(3).allMatch(e -> e.entity() == ChangeEvent.Entity.MESSAGE);
        }
    }

    @Test
    void aFailedStoreCallInsideIsUndoneWithoutSpoilingTheUnitAndAThrowSpoilsIt() {
        try (MemoryStore store = MemoryStore.over(PostgresBackend.open(server.jdbcUrl(server.newSchema()), "postgres", ""))) {
            Attempt<Boolean> caught = store.inTransaction(tx -> {
                tx.messages().append(ANA, NewMessage.user("s", "kept"));
                return tx.attempt(() -> {
                    tx.messages().append(ANA, NewMessage.user("s", "half-done"));
                    try {
                        tx.blocks().append(ANA, "missing", "x", BlockStore.ANY_VERSION);
                    } catch (NotFoundException e) {
                        // a tool that catches the failure and says it succeeded anyway
                    }
                    return true;
                }, r -> r);
            });
            assertThat(caught.kept()).isFalse();
            assertThat(caught.failure()).containsInstanceOf(NotFoundException.class);
            assertThat(contents(store)).containsExactly("kept");

            long seq = store.changes().lastSeq();
            assertThatThrownBy(() -> store.useTransaction(tx -> {
                tx.messages().append(ANA, NewMessage.user("s", "lost with the unit"));
                try {
                    tx.attempt(() -> {
                        tx.messages().append(ANA, NewMessage.user("s", "thrown"));
                        throw new IllegalStateException("the tool broke");
                    }, r -> true);
                } catch (IllegalStateException e) {
                    // caught: the unit is spoiled all the same
                }
            })).isInstanceOf(MemoryException.class).hasMessageContaining("the tool broke");
            assertThat(contents(store)).containsExactly("kept");
            assertThat(store.changes().since(seq, 100)).isEmpty();
        }
    }

    @Test
    void aStatementThatFailsInsideAPartLeavesTheTransactionUsableAndNothingOfThePart() {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend backend = PostgresBackend.open(url, "postgres", "")) {
            Instant at = Instant.parse("2026-11-26T12:00:00Z");
            List<String> after = backend.writeUnit(rows -> {
                rows.insertMessages(ANA, List.of(NewMessage.user("s", "before")), at);
                assertThatThrownBy(() -> rows.savepoint(() -> {
                    rows.insertMessages(ANA, List.of(NewMessage.user("s", "undone")), at);
                    return unlocked(rows).one("SELECT 1 / 0", (rs, c) -> rs.getInt(1)).isPresent();
                })).hasMessageContaining("division by zero");
                // the transaction is not left aborted: the unit goes on and commits
                rows.insertMessages(ANA, List.of(NewMessage.user("s", "after")), at);
                return rows.listMessages(ANA, MessageQuery.all()).stream().map(ConversationMessage::content).toList();
            });
            assertThat(after).containsExactly("before", "after");
            List<ConversationMessage> stored = backend.read(rows -> rows.listMessages(ANA, MessageQuery.all()));
            assertThat(stored).extracting(ConversationMessage::content).containsExactly("before", "after");
        }
    }

    @Test
    void theLocksAnUndonePartTookAreReleasedAndTakenAgainWhenNeeded() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend a = PostgresBackend.open(url, "postgres", "");
                PostgresBackend b = PostgresBackend.open(url, "postgres", "");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch undone = new CountDownLatch(1);
            CountDownLatch retaken = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<Object> unit = pool.submit(() -> a.writeUnit(rows -> {
                rows.listAgents("ana");
                assertThat(rows.savepoint(() -> {
                    rows.listAgents("ben"); // takes ben's lock, then is undone
                    assertThat(heldUserLocks(rows, "ben")).isEqualTo(1);
                    return false;
                })).isFalse();
                assertThat(heldUserLocks(rows, "ben")).isZero();
                undone.countDown();
                await(release);
                rows.listAgents("ben"); // needs it again: taken again, not assumed held
                assertThat(heldUserLocks(rows, "ben")).isEqualTo(1);
                retaken.countDown();
                return null;
            }));
            assertThat(undone.await(30, TimeUnit.SECONDS)).isTrue();
            // ben's rows are free while the unit is still open
            b.write(rows -> rows.listAgents("ben"));
            release.countDown();
            assertThat(retaken.await(30, TimeUnit.SECONDS)).isTrue();
            unit.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWriteThatFailsInASharedTransactionGivesBackTheLocksItTookAndTheNextWriteTakesThemAgain() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend backend = PostgresBackend.open(url, "postgres", "");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<Object> first = pool.submit(() -> backend.write(rows -> {
                rows.listAgents("ana");
                started.countDown();
                await(release);
                return null;
            }));
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            Future<Object> failing = pool.submit(() -> backend.write(rows -> {
                rows.listAgents("ben");
                throw new IllegalStateException("the write's own failure");
            }));
            awaitQueued(backend, 1);
            Future<Integer> next = pool.submit(() -> backend.write(rows -> {
                rows.listAgents("ben");
                return heldUserLocks(rows, "ben");
            }));
            awaitQueued(backend, 2);
            release.countDown();
            first.get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> failing.get(30, TimeUnit.SECONDS)).hasMessageContaining("the write's own failure");
            assertThat(next.get(30, TimeUnit.SECONDS)).as("ben's lock held by the write after the failed one").isEqualTo(1);
        }
    }

    private static PostgresRows unlocked(Rows rows) {
        return ((WriteLocks.Unlocked) rows).unlocked();
    }

    /** How many of {@code user}'s write locks this transaction's backend holds. */
    private static int heldUserLocks(Rows rows, String user) {
        return unlocked(rows).one("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() "
                + "AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 2 AND granted", (rs, c) -> rs.getInt(1),
                (long) WriteLocks.USER_SPACE, user.hashCode() & 0xffffffffL).orElseThrow();
    }

    private static void awaitQueued(PostgresBackend backend, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (backend.queuedWrites() < n) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the writes did not queue: " + backend.queuedWrites() + " of " + n);
            }
            Thread.sleep(2);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never released the write");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
