package dev.engram.memory;

import java.util.List;

/** The store's change log: one event per committed change, in commit order, sequence numbers strictly increasing. */
public interface ChangeLog {
    /** Events with {@code seq > afterSeq}, oldest first, at most {@code max}. */
    List<ChangeEvent> since(long afterSeq, int max);

    /** The sequence number of the newest event, or 0 if there is none; asks the storage. */
    long lastSeq();

    /**
     * The newest sequence number as far as this store instance knows, cheap enough to call on every
     * search: it reflects every write made through this instance by the time that write returned,
     * while a write by another process sharing the storage shows up once {@link #lastSeq()} has been
     * called after it. A store may answer from memory when nothing was written through it since it
     * last asked the storage; the default asks every time.
     */
    default long knownLastSeq() {
        return lastSeq();
    }
}
