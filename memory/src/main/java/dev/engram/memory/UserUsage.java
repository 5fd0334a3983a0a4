package dev.engram.memory;

/**
 * What one user keeps in a store, for quotas: counted by the backend with one query per table, not by
 * reading the rows ({@link MemoryStore#usage(String)}).
 *
 * @param agents          the user's agent records
 * @param blocks          the blocks the user's agents own (a shared block counts once, at its owner)
 * @param archivalEntries the archival entries of all the user's agents
 * @param notes           the user's notes
 * @param storedBytes     the UTF-8 bytes of those blocks' values, archival entries' contents and notes' contents
 */
public record UserUsage(long agents, long blocks, long archivalEntries, long notes, long storedBytes) {
    /** Nothing stored. */
    public static final UserUsage NONE = new UserUsage(0, 0, 0, 0, 0);
}
