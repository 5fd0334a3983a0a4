package dev.engram.memory;

import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.spi.NewChange;
import dev.engram.memory.spi.Rows;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

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
        /** Whether {@link #failure} is the storage's own (a store call's driver or connection failure). */
        boolean storageFailed;

        Unit(Rows rows) {
            this.rows = rows;
        }
    }

    /** What a store and its views ({@link MemoryStore#withQuotas}) share: one backend, one open/closed state, one unit per thread. */
    private static final class Shared {
        final MemoryBackend backend;
        /** Write transactions ended through this store, counted after each ends (committed or not). */
        final AtomicLong endedWrites = new AtomicLong();
        final ThreadLocal<Unit> unit = new ThreadLocal<>();
        volatile boolean closed;

        Shared(MemoryBackend backend) {
            this.backend = backend;
        }
    }

    private final Shared shared;
    private final MemoryBackend backend;
    private final Clock clock;
    private final MemoryLimits limits;
    private final UserQuotas quotas;
    private final ThreadLocal<Unit> unit;

    StoreCore(MemoryBackend backend, Clock clock, MemoryLimits limits) {
        this(new Shared(backend), clock, limits, UserQuotas.unlimited());
    }

    private StoreCore(Shared shared, Clock clock, MemoryLimits limits, UserQuotas quotas) {
        this.shared = shared;
        this.backend = shared.backend;
        this.unit = shared.unit;
        this.clock = clock;
        this.limits = limits;
        this.quotas = quotas;
    }

    /** A core over the same backend, units of work and open state that enforces {@code quotas}. */
    StoreCore withQuotas(UserQuotas quotas) {
        return new StoreCore(shared, clock, limits, quotas);
    }

    UserQuotas quotas() {
        return quotas;
    }

    /**
     * Refuses, inside the write running on {@code rows}, growth that would take {@code user} past a quota: counted on
     * those rows, so the count holds every committed write (the backend serialises writes) and the unit's own.
     */
    void checkQuota(Rows rows, String user, UserUsage adding) {
        if (quotas.isUnlimited() || (adding.agents() <= 0 && adding.blocks() <= 0 && adding.archivalEntries() <= 0
                && adding.notes() <= 0 && adding.storedBytes() <= 0)) {
            return;
        }
        quotas.check(user, rows.usage(user), adding);
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
            shared.endedWrites.incrementAndGet();
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
     * outermost ends); if that nested call throws, the unit is spoiled like by a failed store call. Committed
     * when {@code work} returns, unless a store call inside it threw (even if {@code work} caught that): then
     * everything is rolled back and this throws: an exception naming that failure when the store refused the
     * call, or the failure itself when the storage failed (a lost connection, a full disk), for the backend to
     * classify.
     * When {@code work} throws, everything is rolled back and its exception reaches the caller unchanged.
     */
    <T> T inTransaction(Supplier<T> work) {
        checkOpen();
        Unit outer = unit.get();
        if (outer != null) {
            try {
                return work.get();
            } catch (RuntimeException | Error e) {
                spoil(outer, e, false); // a nested unit that failed cannot be kept half-done by the outer one
                throw e;
            }
        }
        try {
            return backend.writeUnit(rows -> {
                Unit open = new Unit(rows);
                unit.set(open);
                try {
                    T result = work.get();
                    if (open.failure != null) {
                        throw open.storageFailed ? open.failure : MemoryErrors.spoiledUnit(open.failure);
                    }
                    return result;
                } finally {
                    unit.remove();
                }
            });
        } finally {
            shared.endedWrites.incrementAndGet();
        }
    }

    private static <T> T joined(Unit open, Function<Rows, T> work, boolean writes) {
        try {
            return work.apply(open.rows);
        } catch (NotFoundException | IllegalArgumentException e) {
            // A read that finds nothing changed nothing; a write that throws may have written half.
            if (writes) {
                spoil(open, e, false);
            }
            throw e;
        } catch (RuntimeException | Error e) {
            spoil(open, e, isStorageFailure(e));
            throw e;
        }
    }

    /**
     * Records the first failure inside a unit: it can then only roll back. When its work returns anyway, a
     * refusal by the store's rules ends the unit with an exception naming it, while a failure of the storage
     * itself is rethrown as it is, so that the backend classifies it as it does any failed write (a lost
     * connection becomes a {@link StorageUnavailableException}, which a server answers with 503, not 500).
     */
    private static void spoil(Unit open, Throwable e, boolean storage) {
        if (open.failure == null) {
            open.failure = e instanceof RuntimeException r ? r : new MemoryException(e.toString(), e);
            open.storageFailed = storage && e instanceof RuntimeException;
        }
    }

    /** A store call's failure that is the storage's (driver, connection, disk), not a refusal by the store's rules. */
    private static boolean isStorageFailure(Throwable e) {
        return e instanceof StorageUnavailableException || e instanceof StorageFullException
                || e instanceof RuntimeException && !(e instanceof MemoryException || e instanceof IllegalArgumentException
                        || e instanceof IllegalStateException || e instanceof UnsupportedOperationException);
    }

    /** Whether {@link #attempt} is available: the backend can undo part of a unit of work. */
    boolean attempts() {
        return backend.savepoints();
    }

    /**
     * Runs {@code work} inside the unit of work open on this thread so that its writes can be undone alone: kept when it
     * returns a result {@code keep} accepts and no store call inside it failed; otherwise undone, and a store call's
     * failure inside it no longer spoils the unit (what it wrote is gone). When {@code work} throws, its writes are
     * undone and the exception spoils the unit as any failed store call does.
     */
    <T> Attempt<T> attempt(Supplier<T> work, Predicate<T> keep) {
        checkOpen();
        Unit open = unit.get();
        if (open == null) {
            throw new IllegalStateException("An attempt runs inside a unit of work (inTransaction); none is open on this thread.");
        }
        if (!backend.savepoints()) {
            throw new IllegalStateException("This store's backend cannot undo part of a unit of work; check supportsAttempts() first.");
        }
        RuntimeException before = open.failure;
        boolean beforeStorage = open.storageFailed;
        List<T> result = new ArrayList<>(1);
        List<RuntimeException> failed = new ArrayList<>(1);
        boolean kept;
        try {
            kept = open.rows.savepoint(() -> {
                T r = work.get();
                result.add(r);
                if (open.failure != before) {
                    failed.add(open.failure);
                    return false;
                }
                return keep.test(r);
            });
        } catch (RuntimeException | Error e) {
            open.failure = before;
            open.storageFailed = beforeStorage;
            spoil(open, e, false);
            throw e;
        }
        open.failure = before;
        open.storageFailed = beforeStorage;
        return new Attempt<>(result.getFirst(), kept, failed.isEmpty() ? Optional.empty() : Optional.of(failed.getFirst()));
    }

    /** The UTF-8 length of {@code text}, as quotas count stored bytes, without encoding it. */
    static long utf8Bytes(String text) {
        long n = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    long endedWrites() {
        return shared.endedWrites.get();
    }

    Instant now() {
        return Columns.truncate(clock.instant());
    }

    /** Marks the store (and every view of it) closed; returns whether it was open. */
    boolean close() {
        synchronized (shared) {
            boolean wasOpen = !shared.closed;
            shared.closed = true;
            return wasOpen;
        }
    }

    private void checkOpen() {
        if (shared.closed) {
            throw MemoryErrors.closed();
        }
    }

    /** Appends one event to the change log, inside the caller's transaction. */
    static void record(Rows rows, ChangeEvent.Entity entity, String id, ChangeEvent.Op op, String userId, String agentIdOrNull) {
        rows.appendChanges(List.of(new NewChange(entity, id, op, userId, Optional.ofNullable(agentIdOrNull))));
    }
}
