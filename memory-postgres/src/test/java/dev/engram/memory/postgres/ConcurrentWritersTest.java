package dev.engram.memory.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ChangeEvent;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.NewChange;
import dev.engram.memory.spi.Rows;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two backends on one database writing at once ({@link WriteLocks}): writes of different users run together, writes
 * of one user one after the other, and the change log read by the other backend while they run shows every change
 * exactly once, in each scope's order, even when a transaction that began first commits last. Skipped, with a
 * message, when no PostgreSQL server binaries are installed.
 */
class ConcurrentWritersTest {
    private static PostgresServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PostgresServer.sharedOrSkip(); // the cluster shared by the test JVM: nothing to close
    }

    private static NewChange change(String user, String id) {
        return new NewChange(ChangeEvent.Entity.BLOCK, id, ChangeEvent.Op.UPSERT, user, Optional.of("a"));
    }

    @Test
    void aTransactionOpenWhileALaterOneCommitsIsNotSkippedByTheChangeLogReader() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend a = PostgresBackend.open(url, "postgres", "");
                PostgresBackend b = PostgresBackend.open(url, "postgres", "");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Future<Object> early = pool.submit(() -> a.write(rows -> {
                rows.listAgents("ana"); // takes ana's lock
                rows.appendChanges(List.of(change("ana", "early")));
                inside.countDown();
                await(release);
                return null;
            }));
            inside.await();
            // Another user's write on the other backend commits while the first is still open: it does not wait.
            b.write(rows -> {
                rows.listAgents("ben");
                rows.appendChanges(List.of(change("ben", "late")));
                return null;
            });
            List<ChangeEvent> seen = new ArrayList<>(b.read(rows -> rows.changesSince(0, 100)));
            assertThat(seen).extracting(ChangeEvent::id).containsExactly("late");
            long cursor = seen.getLast().seq();
            long last = b.read(rows -> rows.lastChangeSeq());
            assertThat(last).isEqualTo(cursor);
            release.countDown();
            early.get(60, TimeUnit.SECONDS);
            List<ChangeEvent> after = b.read(rows -> rows.changesSince(cursor, 100));
            assertThat(after).extracting(ChangeEvent::id).containsExactly("early");
            assertThat(after.getFirst().seq()).isGreaterThan(cursor);
        }
    }

    @Test
    void aWriteOfTheSameUserWaitsForTheOpenOne() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend a = PostgresBackend.open(url, "postgres", "");
                PostgresBackend b = PostgresBackend.open(url, "postgres", "");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicBoolean released = new AtomicBoolean();
            Future<Object> first = pool.submit(() -> a.write(rows -> {
                rows.listAgents("ana");
                inside.countDown();
                await(release);
                released.set(true);
                return null;
            }));
            inside.await();
            Future<Boolean> second = pool.submit(() -> b.write(rows -> {
                rows.listAgents("ana");
                return released.get(); // ran only once the first had ended
            }));
            Thread.sleep(300);
            assertThat(second).isNotDone();
            release.countDown();
            first.get(60, TimeUnit.SECONDS);
            assertThat(second.get(60, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aWriteThatNeedsALockHeldElsewhereLetsTheWritesBeforeItCommitAndThenWaitsAlone() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend a = PostgresBackend.open(url, "postgres", "");
                PostgresBackend b = PostgresBackend.open(url, "postgres", "");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch benHeld = new CountDownLatch(1);
            CountDownLatch releaseBen = new CountDownLatch(1);
            Future<Object> holder = pool.submit(() -> a.write(rows -> {
                rows.listAgents("ben");
                benHeld.countDown();
                await(releaseBen);
                return null;
            }));
            benHeld.await();
            CountDownLatch anaInside = new CountDownLatch(1);
            CountDownLatch releaseAna = new CountDownLatch(1);
            Future<Object> ana = pool.submit(() -> b.write(rows -> {
                rows.listAgents("ana");
                anaInside.countDown();
                await(releaseAna);
                rows.appendChanges(List.of(change("ana", "first")));
                return null;
            }));
            anaInside.await();
            // Queued behind ana's write, so it runs in ana's transaction, where ben's lock cannot be had.
            Future<Object> ben = pool.submit(() -> b.write(rows -> {
                rows.listAgents("ben");
                rows.appendChanges(List.of(change("ben", "second")));
                return null;
            }));
            while (b.queuedWrites() < 1) {
                Thread.sleep(2);
            }
            releaseAna.countDown();
            ana.get(60, TimeUnit.SECONDS); // committed without waiting for ben's lock
            assertThat(b.retriedWrites()).isEqualTo(1);
            List<ChangeEvent> committed = b.read(rows -> rows.changesSince(0, 10));
            assertThat(committed).extracting(ChangeEvent::id).containsExactly("first");
            assertThat(ben).isNotDone();
            releaseBen.countDown();
            holder.get(60, TimeUnit.SECONDS);
            ben.get(60, TimeUnit.SECONDS);
            List<ChangeEvent> all = b.read(rows -> rows.changesSince(0, 10));
            assertThat(all).extracting(ChangeEvent::id).containsExactly("first", "second");
        }
    }

    @Test
    void aUnitOfWorkOfOneUserRunsWhileAnotherUsersWriteIsOpenAndOneOfTheSameUserWaits() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend a = PostgresBackend.open(url, "postgres", "");
                PostgresBackend b = PostgresBackend.open(url, "postgres", "");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicBoolean released = new AtomicBoolean();
            Future<Object> open = pool.submit(() -> a.write(rows -> {
                rows.listAgents("ana");
                inside.countDown();
                await(release);
                released.set(true);
                return null;
            }));
            inside.await();
            // A unit of ben's (a step's closing unit touches its user's rows only) does not wait for ana's write.
            Future<Object> ben = pool.submit(() -> b.writeUnit(rows -> {
                rows.listAgents("ben");
                rows.appendChanges(List.of(change("ben", "unit")));
                return null;
            }));
            ben.get(30, TimeUnit.SECONDS);
            assertThat(changes(b)).extracting(ChangeEvent::id).containsExactly("unit");
            // One of ana's waits for it.
            Future<Boolean> ana = pool.submit(() -> b.writeUnit(rows -> {
                rows.listAgents("ana");
                return released.get();
            }));
            Thread.sleep(300);
            assertThat(ana).isNotDone();
            release.countDown();
            open.get(60, TimeUnit.SECONDS);
            assertThat(ana.get(60, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aUnitOfWorkThatNeedsALockHeldElsewhereWaitsForItAndRunsOnce() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend a = PostgresBackend.open(url, "postgres", "");
                PostgresBackend b = PostgresBackend.open(url, "postgres", "");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch benHeld = new CountDownLatch(1);
            CountDownLatch releaseBen = new CountDownLatch(1);
            Future<Object> holder = pool.submit(() -> a.write(rows -> {
                rows.listAgents("ben");
                benHeld.countDown();
                await(releaseBen);
                return null;
            }));
            benHeld.await();
            AtomicInteger runs = new AtomicInteger();
            // Ana's rows, then ben's (held by the other backend), then a database-wide operation: it waits, never re-runs.
            Future<Object> unit = pool.submit(() -> b.writeUnit(rows -> {
                runs.incrementAndGet();
                rows.listAgents("ana");
                rows.appendChanges(List.of(change("ana", "ana")));
                rows.listAgents("ben");
                rows.appendChanges(List.of(change("ben", "ben")));
                rows.keyByHash("no such key");
                return null;
            }));
            Thread.sleep(300);
            assertThat(unit).isNotDone();
            releaseBen.countDown();
            holder.get(60, TimeUnit.SECONDS);
            unit.get(60, TimeUnit.SECONDS);
            assertThat(runs).hasValue(1);
            assertThat(b.retriedWrites()).isZero();
            assertThat(changes(a)).extracting(ChangeEvent::id).containsExactly("ana", "ben");
        }
    }

    @Test
    void twoUnitsTakingTwoUsersInOppositeOrderEndWithOneRolledBackWholeAndTheOtherKept() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        try (PostgresBackend a = PostgresBackend.open(url, "postgres", "");
                PostgresBackend b = PostgresBackend.open(url, "postgres", "");
                ExecutorService pool = Executors.newCachedThreadPool()) {
            CountDownLatch bothIn = new CountDownLatch(2);
            Future<Object> first = pool.submit(() -> a.writeUnit(crossing(bothIn, "ana", "ben")));
            Future<Object> second = pool.submit(() -> b.writeUnit(crossing(bothIn, "ben", "ana")));
            List<Throwable> failed = new ArrayList<>();
            for (Future<Object> f : List.of(first, second)) {
                try {
                    f.get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    failed.add(e.getCause());
                }
            }
            assertThat(failed).singleElement().isExactlyInstanceOf(MemoryException.class)
                    .satisfies(e -> assertThat(e).hasMessageContaining("nothing of it was kept").hasMessageContaining("Run it again"));
            // Only the unit that was kept wrote its changes: both of them, and nothing of the other.
            List<ChangeEvent> log = a.read(rows -> rows.changesSince(0, 10));
            assertThat(log).hasSize(2);
            assertThat(log).extracting(ChangeEvent::id).isIn(List.of("ana-first", "ben-then"), List.of("ben-first", "ana-then"));
        }
    }

    private static List<ChangeEvent> changes(PostgresBackend backend) {
        return backend.read(rows -> rows.changesSince(0, 10));
    }

    /** A unit that touches {@code one}'s rows, waits until the other unit touched its own, then touches {@code two}'s. */
    private static Function<Rows, Object> crossing(CountDownLatch bothIn, String one, String two) {
        return rows -> {
            rows.listAgents(one);
            rows.appendChanges(List.of(change(one, one + "-first")));
            bothIn.countDown();
            await(bothIn);
            rows.listAgents(two);
            rows.appendChanges(List.of(change(two, two + "-then")));
            return null;
        };
    }

    @Test
    void twoBackendsWritingToTheSameAndToOtherScopesLoseNothingAndTheLogShowsEachChangeOnceInOrder() throws Exception {
        String url = server.jdbcUrl(server.newSchema());
        Scope shared = Scope.of("ana", "helper");
        List<Scope> own = List.of(Scope.of("ben", "x"), Scope.of("cy", "y"), Scope.of("dee", "z"), Scope.of("eve", "w"));
        int perThread = 40;
        try (MemoryStore one = MemoryStore.over(PostgresBackend.open(url, "postgres", ""));
                MemoryStore two = MemoryStore.over(PostgresBackend.open(url, "postgres", ""));
                ExecutorService pool = Executors.newCachedThreadPool()) {
            one.blocks().create(shared, NewBlock.builder("log").value("").limit(100_000).build());
            for (Scope s : own) {
                one.blocks().create(s, NewBlock.builder("log").value("").limit(100_000).build());
            }
            long start = two.changes().lastSeq();
            AtomicBoolean done = new AtomicBoolean();
            // The other backend follows the log while the writes run, as a search index would.
            Future<List<ChangeEvent>> follower = pool.submit(() -> {
                List<ChangeEvent> events = new ArrayList<>();
                long cursor = start;
                while (true) {
                    boolean last = done.get();
                    List<ChangeEvent> page = two.changes().since(cursor, 50);
                    events.addAll(page);
                    if (!page.isEmpty()) {
                        cursor = page.getLast().seq();
                    } else if (last) {
                        return events;
                    }
                }
            });
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                MemoryStore store = t % 2 == 0 ? one : two;
                Scope mine = own.get(t);
                String tag = "t" + t;
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        store.blocks().appendLine(shared, "log", tag + "-" + i);
                        store.blocks().appendLine(mine, "log", tag + "-" + i);
                    }
                    return null;
                }));
            }
            for (Future<?> w : writers) {
                w.get(120, TimeUnit.SECONDS);
            }
            done.set(true);
            List<ChangeEvent> events = follower.get(120, TimeUnit.SECONDS);

            List<String> sharedLines = List.of(one.blocks().get(shared, "log").orElseThrow().value().split("\n"));
            assertThat(sharedLines).hasSize(4 * perThread);
            for (int t = 0; t < 4; t++) {
                List<String> lines = List.of(two.blocks().get(own.get(t), "log").orElseThrow().value().split("\n"));
                assertThat(lines).hasSize(perThread);
                for (int i = 0; i < perThread; i++) {
                    assertThat(sharedLines).contains("t" + t + "-" + i);
                    assertThat(lines.get(i)).isEqualTo("t" + t + "-" + i);
                }
            }
            // Every write is one event, seen once, with strictly increasing numbers; per scope, one per version.
            assertThat(events).hasSize(4 * perThread * 2);
            Set<Long> seqs = new HashSet<>();
            for (int i = 0; i < events.size(); i++) {
                assertThat(seqs.add(events.get(i).seq())).isTrue();
                if (i > 0) {
                    assertThat(events.get(i).seq()).isGreaterThan(events.get(i - 1).seq());
                }
            }
            Map<String, Integer> perUser = new HashMap<>();
            events.forEach(e -> perUser.merge(e.userId(), 1, Integer::sum));
            assertThat(perUser).containsEntry("ana", 4 * perThread);
            own.forEach(s -> assertThat(perUser).containsEntry(s.userId(), perThread));
            // The log read afterwards from the start is what the follower saw, in the same order.
            assertThat(one.changes().since(start, 10_000)).isEqualTo(events);
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
