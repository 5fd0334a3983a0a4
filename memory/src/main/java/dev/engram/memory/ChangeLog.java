package dev.engram.memory;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The store's change log: one event per committed change, in commit order, sequence numbers strictly increasing.
 * It shows committed events only, also on the thread of an open {@linkplain MemoryStore#inTransaction unit of
 * work}: the events of a unit appear when it commits, all at once and in order, and never if it rolls back.
 */
public final class ChangeLog {
    /** The newest sequence number read from the backend, and the store's write count before that read. */
    private record Known(long writes, long seq) {
    }

    private final StoreCore store;
    private final AtomicReference<Known> known = new AtomicReference<>(new Known(-1, 0));

    ChangeLog(StoreCore store) {
        this.store = store;
    }

    /** Events with {@code seq > afterSeq}, oldest first, at most {@code max} (positive). */
    public List<ChangeEvent> since(long afterSeq, int max) {
        if (max <= 0) {
            throw new IllegalArgumentException("max must be positive, got " + max);
        }
        return store.readCommitted(rows -> rows.changesSince(afterSeq, max));
    }

    /**
     * The events of user {@code userId} with {@code seq > afterSeq}, oldest first, at most {@code max} (positive): the
     * events {@link #since(long, int)} returns that name this user, and only those. An agent that follows the log for its
     * own prompt (its messages, its blocks and those shared with it, its archives: all its user's) reads this, not
     * every user's events; a backend with many users answers it from an index, at the cost of the user's events only.
     *
     * @throws IllegalArgumentException if {@code userId} is not a valid id (null, blank, too long) or {@code max} is not
     *                                  positive
     */
    public List<ChangeEvent> since(String userId, long afterSeq, int max) {
        Checks.id(userId, "user id");
        if (max <= 0) {
            throw new IllegalArgumentException("max must be positive, got " + max);
        }
        return store.readCommitted(rows -> rows.userChangesSince(userId, afterSeq, max));
    }

    /** The sequence number of the newest event, or 0 if there is none; asks the backend. */
    public long lastSeq() {
        // The write count is read before the query, so the answer covers at least every write it counts.
        long writes = store.endedWrites();
        long seq = store.readCommitted(rows -> rows.lastChangeSeq());
        known.accumulateAndGet(new Known(writes, seq),
                (a, b) -> new Known(Math.max(a.writes(), b.writes()), Math.max(a.seq(), b.seq())));
        return seq;
    }

    /**
     * The newest sequence number as far as this store knows, cheap enough to call on every search: it
     * reflects every write made through this store by the time that write returned, while a write by
     * another process sharing the storage shows up once {@link #lastSeq()} has been called after it.
     * Answers from memory while no write has ended through this store since it last asked the backend.
     */
    public long knownLastSeq() {
        Known k = known.get();
        return k.writes() >= store.endedWrites() ? k.seq() : lastSeq();
    }
}
