package dev.engram.memory;

/**
 * How much each user may keep in a store: agents, blocks, archival entries, notes, and the bytes of those blocks'
 * values, entries' contents and notes. A store {@linkplain MemoryStore#withQuotas(UserQuotas) with quotas} checks
 * them inside each write's own transaction, against a count that includes every committed write and the writes of
 * the unit of work the write belongs to, so that concurrent writers (threads, tools of a turn, an import of many
 * agents, several processes on one database) can never take a user past one together. A write that would is refused
 * with a {@link QuotaExceededException} that names the quota and the user's usage, and stores nothing.
 *
 * <p>{@link #defaults()} are far above what a small team uses ({@code engram serve} sets them with
 * {@code --max-agents-per-user} and its siblings); {@link #unlimited()} checks nothing, as a store without quotas.
 *
 * @param agents          agents per user; default 1,000
 * @param blocks          blocks per user (an agent's own blocks and standalone ones); default 10,000
 * @param archivalEntries archival entries per user, over all their agents; default 1,000,000
 * @param notes           notes per user; default 100,000
 * @param storedBytes     UTF-8 bytes of the user's blocks, archival entries and notes; default 1 GiB
 */
public record UserQuotas(long agents, long blocks, long archivalEntries, long notes, long storedBytes) {
    private static final UserQuotas DEFAULTS = new UserQuotas(1_000, 10_000, 1_000_000, 100_000, 1L << 30);
    private static final UserQuotas UNLIMITED = new UserQuotas(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE,
            Long.MAX_VALUE, Long.MAX_VALUE);

    public UserQuotas {
        if (agents < 1 || blocks < 1 || archivalEntries < 1 || notes < 1 || storedBytes < 1) {
            throw new IllegalArgumentException("every quota must be at least 1, got agents " + agents + ", blocks " + blocks
                    + ", archival entries " + archivalEntries + ", notes " + notes + ", stored bytes " + storedBytes);
        }
    }

    /** 1,000 agents, 10,000 blocks, 1,000,000 archival entries, 100,000 notes and 1 GiB per user. */
    public static UserQuotas defaults() {
        return DEFAULTS;
    }

    /** No quota at all: a store with these counts nothing before a write (the default of a {@link MemoryStore}). */
    public static UserQuotas unlimited() {
        return UNLIMITED;
    }

    /** Whether these are {@link #unlimited()}. */
    public boolean isUnlimited() {
        return equals(UNLIMITED);
    }

    public UserQuotas withAgents(long max) {
        return new UserQuotas(max, blocks, archivalEntries, notes, storedBytes);
    }

    public UserQuotas withBlocks(long max) {
        return new UserQuotas(agents, max, archivalEntries, notes, storedBytes);
    }

    public UserQuotas withArchivalEntries(long max) {
        return new UserQuotas(agents, blocks, max, notes, storedBytes);
    }

    public UserQuotas withNotes(long max) {
        return new UserQuotas(agents, blocks, archivalEntries, max, storedBytes);
    }

    public UserQuotas withStoredBytes(long max) {
        return new UserQuotas(agents, blocks, archivalEntries, notes, max);
    }

    /**
     * Refuses {@code adding} (a write's growth: new agents, blocks, entries, notes, and bytes, each zero or more) on top of
     * {@code usage}, naming the first quota it would pass. The one place that words a quota's refusal.
     */
    void check(String user, UserUsage usage, UserUsage adding) {
        check(user, "agents", usage.agents(), adding.agents(), agents, "delete an agent");
        check(user, "blocks", usage.blocks(), adding.blocks(), blocks, "delete blocks");
        check(user, "archival entries", usage.archivalEntries(), adding.archivalEntries(), archivalEntries,
                "delete archival entries");
        check(user, "notes", usage.notes(), adding.notes(), notes, "delete notes");
        if (adding.storedBytes() > 0 && usage.storedBytes() + adding.storedBytes() > storedBytes) {
            throw new QuotaExceededException("User '" + user + "' stores " + usage.storedBytes() + " bytes in blocks, "
                    + "archival memory and notes; this would add " + adding.storedBytes() + ", past the quota of "
                    + storedBytes + " bytes. Nothing was stored: delete or shorten blocks, archival entries or notes first.");
        }
    }

    private static void check(String user, String what, long current, long adding, long max, String remedy) {
        if (adding > 0 && current + adding > max) {
            throw new QuotaExceededException("User '" + user + "' has " + current + " " + what + "; this would make "
                    + (current + adding) + ", past the quota of " + max + " " + what + " per user. Nothing was stored: "
                    + remedy + " first.");
        }
    }
}
