package dev.engram.server;

/**
 * How much each user may keep on an {@link EngramServer}: agents, blocks, archival entries, and the bytes of those
 * blocks' values and entries' contents. A request that would go past one is refused with 403 and Letta's
 * {@code {"detail": ...}}, which names the quota and the user's current usage, and stores nothing. The defaults
 * are far above what a small team uses; {@code engram serve} sets them with {@code --max-agents-per-user} and its
 * siblings.
 *
 * @param agents          agents per user; default 1,000
 * @param blocks          blocks per user (an agent's own blocks and standalone ones); default 10,000
 * @param archivalEntries archival entries per user, over all their agents; default 1,000,000
 * @param storedBytes     UTF-8 bytes of the user's blocks and archival entries; default 1 GiB
 */
public record UserQuotas(long agents, long blocks, long archivalEntries, long storedBytes) {
    private static final UserQuotas DEFAULTS = new UserQuotas(1_000, 10_000, 1_000_000, 1L << 30);

    public UserQuotas {
        if (agents < 1 || blocks < 1 || archivalEntries < 1 || storedBytes < 1) {
            throw new IllegalArgumentException("every quota must be at least 1, got agents " + agents + ", blocks " + blocks
                    + ", archival entries " + archivalEntries + ", stored bytes " + storedBytes);
        }
    }

    /** 1,000 agents, 10,000 blocks, 1,000,000 archival entries and 1 GiB per user. */
    public static UserQuotas defaults() {
        return DEFAULTS;
    }

    public UserQuotas withAgents(long max) {
        return new UserQuotas(max, blocks, archivalEntries, storedBytes);
    }

    public UserQuotas withBlocks(long max) {
        return new UserQuotas(agents, max, archivalEntries, storedBytes);
    }

    public UserQuotas withArchivalEntries(long max) {
        return new UserQuotas(agents, blocks, max, storedBytes);
    }

    public UserQuotas withStoredBytes(long max) {
        return new UserQuotas(agents, blocks, archivalEntries, max);
    }
}
