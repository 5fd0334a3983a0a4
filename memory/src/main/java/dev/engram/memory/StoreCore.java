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
 */
final class StoreCore {
    private final MemoryBackend backend;
    private final Clock clock;
    private final MemoryLimits limits;
    /** Write transactions ended through this store, counted after each ends (committed or not). */
    private final AtomicLong endedWrites = new AtomicLong();
    private volatile boolean closed;

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

    /** Runs {@code work} in one write transaction of the backend. */
    <T> T write(Function<Rows, T> work) {
        checkOpen();
        try {
            return backend.write(work);
        } finally {
            endedWrites.incrementAndGet();
        }
    }

    /** Runs {@code work} on committed data. */
    <T> T read(Function<Rows, T> work) {
        checkOpen();
        return backend.read(work);
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
