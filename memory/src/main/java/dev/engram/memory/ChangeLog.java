package dev.engram.memory;

import java.util.List;

/** The store's change log: one event per committed change, in commit order, sequence numbers strictly increasing. */
public interface ChangeLog {
    /** Events with {@code seq > afterSeq}, oldest first, at most {@code max}. */
    List<ChangeEvent> since(long afterSeq, int max);

    /** The sequence number of the newest event, or 0 if there is none. */
    long lastSeq();
}
