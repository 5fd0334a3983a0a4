package dev.engram.memory.postgres;

import dev.engram.memory.MemoryException;
import dev.engram.memory.spi.Rows;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * Group commit of this process's writes: writes that arrive while another runs share its PostgreSQL transaction, and
 * one commit (one wait for the WAL to reach the disk) makes them all durable.
 *
 * <p>Why: every write holds advisory locks ({@link WriteLocks}: its user's, or the whole database's), which PostgreSQL
 * releases only after the commit's WAL flush, so writes of one user never share a flush the way concurrent
 * transactions otherwise do. Here the writes queued behind a running one run next in the same transaction, each on
 * its own caller's thread, one after the other (in the order they arrived), then commit together; the change-log
 * entries of all of them are inserted with the commit, in the same round trip ({@link
 * WriteLocks#insertChangesAndCommit}).
 *
 * <p>A write that needs a lock another transaction holds while this one holds others is taken back to its savepoint
 * ({@link WriteLocks.Retry}), the writes before it commit, and it runs again first in a new transaction, which may
 * wait; if it still needs more there, it runs once more with the database lock taken first. A unit of work takes its
 * locks as it touches rows too, but waits for each instead (its caller's code cannot be run again; see {@link
 * WriteLocks}), and the writes that join its transaction after it are writes like any other.
 *
 * <p>What each write still gets: it runs alone and sees every write before it (the same serial order as before,
 * inside one transaction); it returns only once the commit that holds it is durable; if it throws, everything it did
 * is rolled back (to a savepoint taken before it: the writes before it in the transaction stay) and its exception
 * reaches its caller unchanged; if the commit fails, every write in it fails. At most {@link #maxWrites} writes share
 * one transaction (each after the first is a subtransaction, and PostgreSQL caches 64 per transaction).
 */
final class GroupCommit {
    /** Writes in one transaction by default. */
    static final int MAX_WRITES = 32;
    private static final String SAVEPOINT = "engram_write";

    /** One transaction and the writes that ran in it. */
    private static final class Batch {
        final Handle handle;
        final WriteLocks locks;
        final Rows rows;
        /** Writes that ran in it and are kept (guarded by {@link #turn}). */
        int writes;
        /** Counted down once the transaction committed or failed; {@link #failure} is set before. */
        final CountDownLatch ended = new CountDownLatch(1);
        volatile RuntimeException failure;

        Batch(Handle handle, WriteLocks locks) {
            this.handle = handle;
            this.locks = locks;
            this.rows = locks.rows(locks.plainRows());
        }
    }

    private final Jdbi jdbi;
    /** The users of runs looked up so far (see {@link WriteLocks}). */
    private final Map<String, String> runOwners = new ConcurrentHashMap<>();
    private final int maxWrites;
    private final UnaryOperator<RuntimeException> translate;
    /** Whose write runs now, on the open transaction; fair, so that writes run in the order they came. */
    private final ReentrantLock turn = new ReentrantLock(true);
    /** The transaction writes join, if one is open (guarded by {@link #turn}). */
    private Batch open;
    /** Writes run again (guarded by {@link #turn}; read by tests). */
    private volatile long retried;

    /**
     * @param translate what a failed commit becomes for the writes that waited for it (each gets an exception of its
     *                  own: the store's exception if it gives one, else a {@link MemoryException} naming the failure)
     */
    GroupCommit(Jdbi jdbi, int maxWrites, UnaryOperator<RuntimeException> translate) {
        if (maxWrites < 1) {
            throw new IllegalArgumentException("a transaction must take at least one write, got " + maxWrites);
        }
        this.jdbi = jdbi;
        this.maxWrites = maxWrites;
        this.translate = translate;
    }

    /**
     * Runs {@code work}, a store operation that only reads and writes rows, in the open transaction (or a new one) and
     * returns its result once that transaction committed.
     *
     * @throws IllegalStateException if called from inside a write on the same thread (that write's transaction could
     *                               not end before this one; join it through the store's unit of work instead)
     */
    <T> T write(Function<Rows, T> work) {
        return write(work, false);
    }

    /**
     * {@link #write(Function)} for a unit of work, which runs its caller's own code: it never joins a transaction with
     * writes in it (they would wait for that code, which may wait for them), but writes queued behind it may join its.
     */
    <T> T writeAlone(Function<Rows, T> work) {
        return write(work, true);
    }

    private <T> T write(Function<Rows, T> work, boolean alone) {
        if (turn.isHeldByCurrentThread()) {
            throw new IllegalStateException("a PostgreSQL write cannot start inside another write on the same thread; "
                    + "run it inside the store's unit of work (MemoryStore.inTransaction) instead");
        }
        Batch batch;
        T result;
        boolean waitForCommit;
        turn.lock();
        try {
            boolean exclusive = false; // a unit too takes only what it touches, waiting for each (it cannot be run again)
            while (true) {
                batch = open;
                if (batch != null && alone && batch.writes > 0) {
                    commit(batch); // its writes end now rather than wait for this unit's code
                    batch = null;
                }
                if (batch == null) {
                    batch = begin(exclusive, alone);
                    open = batch;
                }
                boolean first = batch.writes == 0;
                if (!first) { // sent with the write's first statement (Ahead)
                    batch.locks.ahead().savepoint(SAVEPOINT);
                }
                try {
                    result = work.apply(batch.rows);
                    break;
                } catch (WriteLocks.Retry retry) {
                    // A lock it needs is held elsewhere while this transaction holds others: take the write back and
                    // run it again first in a transaction of its own (then, if it still needs more, with every lock).
                    retried++;
                    if (first) {
                        exclusive = true;
                        undo(batch, true, retry);
                    } else {
                        batch.locks.discarded();
                        try {
                            batch.locks.ahead().rollbackTo(batch.handle.getConnection(), SAVEPOINT, false);
                        } catch (RuntimeException e) {
                            throw abandon(batch, e);
                        }
                        commit(batch); // the writes before it end now (their commit's failure is theirs: this one did not run in it)
                    }
                } catch (RuntimeException | Error e) {
                    batch.locks.discarded();
                    undo(batch, first, e);
                    throw e;
                }
            }
            batch.locks.kept();
            batch.writes++;
            waitForCommit = batch.writes < maxWrites && turn.hasQueuedThreads();
            if (!waitForCommit) {
                commit(batch);
            }
        } finally {
            turn.unlock();
        }
        if (waitForCommit) { // the writes queued behind this one run in the same transaction; the last one commits it
            awaitUninterruptibly(batch.ended);
        }
        RuntimeException failure = batch.failure;
        if (failure != null) { // each write gets an exception of its own
            RuntimeException own = translate.apply(failure);
            throw own != failure ? own : new MemoryException("The PostgreSQL transaction this write ran in could not be "
                    + "committed, so nothing of it was kept: " + reason(failure), failure);
        }
        return result;
    }

    /** Writes waiting for their turn now (for tests). */
    int queued() {
        return turn.getQueueLength();
    }

    /** Writes run again after a lock they needed was held elsewhere (for tests). */
    long retried() {
        return retried;
    }

    private Batch begin(boolean exclusive, boolean unit) {
        Handle h = jdbi.open();
        try {
            h.begin();
            WriteLocks locks = new WriteLocks(h, runOwners);
            if (unit) {
                locks.forUnit();
            }
            if (exclusive) {
                locks.lockDatabase();
            }
            return new Batch(h, locks);
        } catch (RuntimeException e) {
            closeQuietly(h, e);
            throw e;
        }
    }

    /**
     * Takes back what a failed write did: the whole transaction if it was the first (nothing else is in it), else back
     * to its savepoint; the transaction then goes on for the writes before it, and is committed now if nobody waits
     * to join it.
     */
    private void undo(Batch batch, boolean first, Throwable cause) {
        if (first) {
            open = null;
            try {
                batch.handle.rollback();
            } catch (RuntimeException e) {
                cause.addSuppressed(e);
            } finally {
                closeQuietly(batch.handle, cause);
                batch.ended.countDown();
            }
            return;
        }
        try {
            batch.locks.ahead().rollbackTo(batch.handle.getConnection(), SAVEPOINT, false);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
            abandon(batch, e);
            return;
        }
        if (!turn.hasQueuedThreads()) {
            commit(batch);
        }
    }

    /** Commits the batch and tells its writes how it ended; the next write opens a new transaction. */
    private void commit(Batch batch) {
        open = null;
        try {
            batch.locks.insertChangesAndCommit();
            batch.handle.commit();
        } catch (RuntimeException e) {
            batch.failure = PostgresFailures.onConnection(batch.handle.getConnection(), e);
            try {
                batch.handle.rollback();
            } catch (RuntimeException again) {
                e.addSuppressed(again);
            }
        } finally {
            closeQuietly(batch.handle, batch.failure);
            batch.ended.countDown();
        }
    }

    /**
     * The transaction broke (its connection, most likely): everything in it is rolled back and every write in it fails
     * with the failure returned, {@code e} or, when the connection is gone, {@code e} as a lost connection ({@link
     * PostgresFailures#onConnection}), so that each write reports the database unreachable rather than its own
     * failure.
     */
    private RuntimeException abandon(Batch batch, RuntimeException e) {
        open = null;
        RuntimeException failure = PostgresFailures.onConnection(batch.handle.getConnection(), e);
        batch.failure = failure;
        try {
            batch.handle.rollback();
        } catch (RuntimeException again) {
            failure.addSuppressed(again);
        } finally {
            closeQuietly(batch.handle, failure);
            batch.ended.countDown();
        }
        return failure;
    }

    /** The message of the innermost cause (the database's own words). */
    private static String reason(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    private static void closeQuietly(Handle h, Throwable failure) {
        try {
            h.close();
        } catch (RuntimeException e) {
            if (failure != null && failure != e) {
                failure.addSuppressed(e);
            }
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
