package dev.engram.memory;

import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.spi.NewChange;
import dev.engram.memory.spi.Rows;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * What every sub-store of one {@link MemoryStore} shares: the backend's transactions, the clock, the
 * count of ended writes ({@link ChangeLog#knownLastSeq()} rests on it) and whether the store is closed.
 *
 * <p>A unit of work ({@link #inTransaction}) is one backend write whose {@link Rows} are bound to the
 * thread that opened it: every {@link #write} and {@link #read} on that thread runs on those rows, in
 * that transaction, until it ends. {@link #readCommitted} never joins a unit: the change log is read
 * through it, so that nothing following the log sees a change before it commits.
 */
final class StoreCore {
    /** The rows of the unit of work open on a thread, and whether a store call inside it failed. */
    private static final class Unit {
        final Rows rows;
        RuntimeException failure;

        Unit(Rows rows) {
            this.rows = rows;
        }
    }

    private final MemoryBackend backend;
    private final Clock clock;
    private final MemoryLimits limits;
    /** Write transactions ended through this store, counted after each ends (committed or not). */
    private final AtomicLong endedWrites = new AtomicLong();
    private volatile boolean closed;
    private final ThreadLocal<Unit> unit = new ThreadLocal<>();

    StoreCore(MemoryBackend backend, Clock clock, MemoryLimits limits) {
        this.backend = backend;
        this.clock = clock;
        this.limits = limits;
    }

    MemoryLimits limits() {
        return limits;
    }

    Clock clock() {
        return clock;
    }

    MemoryBackend backend() {
        return backend;
    }

    /**
     * Runs {@code work} in one write transaction of the backend: the unit of work open on this thread if
     * there is one (a throw then spoils the unit, see {@link #inTransaction}), else a transaction of its own.
     */
    <T> T write(Function<Rows, T> work) {
        checkOpen();
        Unit open = unit.get();
        if (open != null) {
            return joined(open, work, true);
        }
        try {
            return backend.write(work);
        } finally {
            endedWrites.incrementAndGet();
        }
    }

    /** Runs {@code work} on committed data, or inside the unit of work open on this thread (which sees its own writes). */
    <T> T read(Function<Rows, T> work) {
        checkOpen();
        Unit open = unit.get();
        if (open != null) {
            return joined(open, work, false);
        }
        return backend.read(work);
    }

    /** Runs {@code work} on committed data only, even on the thread of an open unit of work. */
    <T> T readCommitted(Function<Rows, T> work) {
        checkOpen();
        return backend.read(work);
    }

    /** Whether this thread is inside a unit of work of this store. */
    boolean inUnit() {
        return unit.get() != null;
    }

    /**
     * Runs {@code work} as one unit of work: one backend write transaction, joined by every store call on
     * this thread until it ends. A call made inside an open unit joins it (nothing commits until the
     * outermost ends). Committed when {@code work} returns, unless a store call inside it threw (even if
     * {@code work} caught that): then everything is rolled back and this throws, naming that failure.
     * When {@code work} throws, everything is rolled back and its exception reaches the caller unchanged.
     */
    <T> T inTransaction(java.util.function.Supplier<T> work) {
        checkOpen();
        if (unit.get() != null) {
            return work.get();
        }
        try {
            return backend.write(rows -> {
                Unit open = new Unit(rows);
                unit.set(open);
                try {
                    T result = work.get();
                    if (open.failure != null) {
                        throw MemoryErrors.spoiledUnit(open.failure);
                    }
                    return result;
                } finally {
                    unit.remove();
                }
            });
        } finally {
            endedWrites.incrementAndGet();
        }
    }

    private static <T> T joined(Unit open, Function<Rows, T> work, boolean writes) {
        try {
            return work.apply(open.rows);
        } catch (NotFoundException | IllegalArgumentException e) {
            // A read that finds nothing changed nothing; a write that throws may have written half.
            if (writes && open.failure == null) {
                open.failure = e;
            }
            throw e;
        } catch (RuntimeException | Error e) {
            if (open.failure == null) {
                open.failure = e instanceof RuntimeException r ? r : new MemoryException(e.toString(), e);
            }
            throw e;
        }
    }

    long endedWrites() {
        return endedWrites.get();
    }

    Instant now() {
        return Columns.truncate(clock.instant());
    }

    /** Marks the store closed; returns whether it was open. */
    synchronized boolean close() {
        boolean wasOpen = !closed;
        closed = true;
        return wasOpen;
    }

    private void checkOpen() {
        if (closed) {
            throw MemoryErrors.closed();
        }
    }

    /** Appends one event to the change log, inside the caller's transaction. */
    static void record(Rows rows, ChangeEvent.Entity entity, String id, ChangeEvent.Op op, String userId, String agentIdOrNull) {
        rows.appendChanges(List.of(new NewChange(entity, id, op, userId, Optional.ofNullable(agentIdOrNull))));
    }
}
