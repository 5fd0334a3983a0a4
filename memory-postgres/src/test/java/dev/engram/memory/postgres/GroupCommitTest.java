package dev.engram.memory.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.MemoryException;
import dev.engram.memory.StorageUnavailableException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Writes of one process that arrive while another runs share its transaction ({@link GroupCommit}): one commit for
 * all, each rolled back alone when it fails, none returning before the commit, all failing when it fails. Skipped,
 * with a message, when no PostgreSQL server binaries are installed.
 */
class GroupCommitTest {
    private static PostgresServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PostgresServer.sharedOrSkip(); // the cluster shared by the test JVM: nothing to close
    }

    /** A write that inserts {@code n} into the test table and answers its transaction's id. */
    private static Function<dev.engram.memory.spi.Rows, Long> insert(int n) {
        return rows -> {
            PostgresRows r = ((WriteLocks.Unlocked) rows).unlocked();
            r.exec("INSERT INTO numbers (n) VALUES (?)", n);
            return r.one("SELECT txid_current()", (rs, c) -> rs.getLong(1)).orElseThrow();
        };
    }

    @Test
    void writesQueuedBehindARunningOneShareItsCommitAndAllAreStored() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend backend = open(url, "CREATE TABLE numbers (n INT)");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch release = new CountDownLatch(1);
            Future<Long> first = running(pool, backend, release, 0);
            List<Future<Long>> queued = new ArrayList<>();
            for (int i = 1; i <= 8; i++) {
                int n = i;
                queued.add(pool.submit(() -> backend.write(insert(n))));
                awaitQueued(backend, i);
            }
            release.countDown();
            Set<Long> transactions = new HashSet<>();
            transactions.add(first.get());
            for (Future<Long> q : queued) {
                transactions.add(q.get());
            }
            assertThat(transactions).as("one transaction for the nine writes").hasSize(1);
            assertThat(numbers(url)).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8);
            // one by one again afterwards: a transaction each
            assertThat(backend.write(insert(9))).isNotEqualTo(backend.write(insert(10)));
        }
    }

    @Test
    void aFailingWriteInASharedTransactionIsRolledBackAloneAndTheOthersAreKept() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend backend = open(url, "CREATE TABLE numbers (n INT)");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch release = new CountDownLatch(1);
            Future<Long> first = running(pool, backend, release, 0);
            Future<Long> kept = pool.submit(() -> backend.write(insert(1)));
            awaitQueued(backend, 1);
            Future<Long> throwing = pool.submit(() -> backend.write(rows -> {
                insert(2).apply(rows);
                throw new IllegalStateException("the caller's own failure");
            }));
            awaitQueued(backend, 2);
            Future<Long> failingSql = pool.submit(() -> backend.write(rows -> {
                insert(3).apply(rows);
                return ((WriteLocks.Unlocked) rows).unlocked().one("SELECT 1 / 0", (rs, c) -> rs.getLong(1)).orElseThrow();
            }));
            awaitQueued(backend, 3);
            Future<Long> last = pool.submit(() -> backend.write(insert(4)));
            awaitQueued(backend, 4);
            release.countDown();

            long tx = first.get();
            assertThat(kept.get()).isEqualTo(tx);
            assertThat(last.get()).isEqualTo(tx);
            assertThatThrownBy(throwing::get).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IllegalStateException.class).hasMessage("the caller's own failure");
            assertThatThrownBy(failingSql::get).isInstanceOf(ExecutionException.class).hasMessageContaining("division by zero");
            assertThat(numbers(url)).containsExactlyInAnyOrder(0, 1, 4);
        }
    }

    @Test
    void aUnitOfWorkNeverJoinsATransactionWithWritesInItButLaterWritesMayJoinIts() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend backend = open(url, "CREATE TABLE numbers (n INT)");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch release = new CountDownLatch(1);
            Future<Long> first = running(pool, backend, release, 0);
            Future<Long> joined = pool.submit(() -> backend.write(insert(1)));
            awaitQueued(backend, 1);
            Future<Long> unit = pool.submit(() -> backend.writeUnit(insert(2)));
            awaitQueued(backend, 2);
            Future<Long> afterUnit = pool.submit(() -> backend.write(insert(3)));
            awaitQueued(backend, 3);
            release.countDown();

            assertThat(joined.get()).isEqualTo(first.get());
            assertThat(unit.get()).isNotEqualTo(first.get());
            assertThat(afterUnit.get()).isEqualTo(unit.get());
            assertThat(numbers(url)).containsExactlyInAnyOrder(0, 1, 2, 3);
        }
    }

    @Test
    void whenTheSharedCommitFailsEveryWriteInItFailsAndNothingIsStored() throws Exception {
        // a deferred unique constraint is checked at commit: the two writes of 7 make the commit fail
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend backend = open(url, "CREATE TABLE numbers (n INT UNIQUE DEFERRABLE INITIALLY DEFERRED)");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch release = new CountDownLatch(1);
            Future<Long> first = running(pool, backend, release, 7);
            Future<Long> other = pool.submit(() -> backend.write(insert(1)));
            awaitQueued(backend, 1);
            Future<Long> duplicate = pool.submit(() -> backend.write(insert(7)));
            awaitQueued(backend, 2);
            release.countDown();

            for (Future<Long> f : List.of(first, other, duplicate)) {
                assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class).cause().isInstanceOf(MemoryException.class)
                        .hasMessageContaining("could not be committed, so nothing of it was kept").hasMessageContaining("numbers_n_key");
            }
            assertThat(numbers(url)).isEmpty();
            backend.write(insert(7)); // the next write has a transaction of its own
            assertThat(numbers(url)).containsExactly(7);
        }
    }

    /**
     * The connection of a shared transaction lost under a joined write (its backend terminated, as a fast shutdown
     * does): the pool closes the connection, so the rollback to the write's savepoint fails with the pool's own
     * "Connection is closed", which names no SQLSTATE. Every write in the transaction still fails as the database being
     * unreachable (a server answers 503, not 500), nothing of them is kept, and the next write runs on a new connection.
     */
    @Test
    void whenTheConnectionIsLostUnderAJoinedWriteEveryWriteInItFailsAsUnavailableAndNothingIsKept() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend backend = open(url, "CREATE TABLE numbers (n INT)");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch release = new CountDownLatch(1);
            Future<Long> first = running(pool, backend, release, 0);
            Future<Long> killing = pool.submit(() -> backend.write(rows -> {
                insert(1).apply(rows);
                return ((WriteLocks.Unlocked) rows).unlocked().one("SELECT pg_terminate_backend(pg_backend_pid())::int",
                        (rs, c) -> rs.getLong(1)).orElseThrow();
            }));
            awaitQueued(backend, 1);
            Future<Long> after = pool.submit(() -> backend.write(insert(2)));
            awaitQueued(backend, 2);
            release.countDown();

            for (Future<Long> f : List.of(first, killing)) {
                assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class).cause()
                        .isInstanceOf(StorageUnavailableException.class).hasMessageContaining("cannot be reached");
            }
            after.get(); // queued behind the lost transaction: it runs in a new one
            backend.write(insert(3));
            assertThat(numbers(url)).containsExactlyInAnyOrder(2, 3);
        }
    }

    @Test
    void aWriteInsideAWriteOnTheSameThreadIsRefusedAndTheOuterOneRolledBack() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend backend = open(url, "CREATE TABLE numbers (n INT)")) {
            assertThatThrownBy(() -> backend.write(rows -> {
                insert(1).apply(rows);
                return backend.write(insert(2));
            })).isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot start inside another write on the same thread");
            assertThat(numbers(url)).isEmpty();
            backend.write(insert(3));
            assertThat(numbers(url)).containsExactly(3);
        }
    }

    /** The backend on {@code url}, with the test table {@code ddl} creates beside the store's. */
    private static PostgresBackend open(String url, String ddl) throws Exception {
        PostgresBackend backend = PostgresBackend.open(url, "postgres", "");
        try (Connection c = DriverManager.getConnection(url, "postgres", ""); Statement st = c.createStatement()) {
            st.execute(ddl);
        }
        return backend;
    }

    private static List<Integer> numbers(String url) throws Exception {
        List<Integer> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url, "postgres", ""); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT n FROM numbers")) {
            while (rs.next()) {
                out.add(rs.getInt(1));
            }
        }
        return out;
    }

    /** A write of {@code n} that runs (the others queue behind it) until {@code release}. */
    private static Future<Long> running(ExecutorService pool, PostgresBackend backend, CountDownLatch release, int n)
            throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        Future<Long> write = pool.submit(() -> backend.write(rows -> {
            started.countDown();
            await(release);
            return insert(n).apply(rows);
        }));
        started.await();
        return write;
    }

    /** Waits until {@code n} writes wait for their turn (the order they will run in). */
    private static void awaitQueued(PostgresBackend backend, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (backend.queuedWrites() < n) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the writes did not queue: " + backend.queuedWrites() + " of " + n);
            }
            Thread.sleep(2);
        }
    }

    /** Waits for the test to release the write, at most a minute (a failed test then fails rather than hangs). */
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
