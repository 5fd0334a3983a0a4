package dev.engram.server;

import dev.engram.agents.AgentDefinition;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.QuotaExceededException;
import dev.engram.memory.UserQuotas;
import dev.engram.memory.UserUsage;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's checks of a user's {@link UserQuotas} for what the store cannot see yet. Every write is checked by the
 * store itself ({@link MemoryStore#withQuotas}: the server's store enforces the quotas inside each write's transaction,
 * whoever writes: a route, an agent's tools, an import), so concurrent requests never pass a quota together. Here, only
 * what is to come: a sleep-time companion (an agent of the user's that is created when it first runs), and a turn of a
 * user already past a quota (one the operator lowered, or rows written around the server), on a usage at most
 * {@link #TURN_USAGE_AGE} old. The limits are the store's ({@link MemoryStore#quotas()}).
 */
final class QuotaGuard {
    /** How old the usage checked before a turn may be: a turn then costs one count query per user per this time. */
    static final Duration TURN_USAGE_AGE = Duration.ofSeconds(5);

    /** The most users whose usage is remembered: past it, usages older than {@link #TURN_USAGE_AGE} go (or, if none is, all). */
    static final int MAX_REMEMBERED = 10_000;

    private final MemoryStore store;
    private final int maxRemembered;
    private final ConcurrentHashMap<String, Counted> recent = new ConcurrentHashMap<>();

    private record Counted(UserUsage usage, long atNanos) {
    }

    QuotaGuard(MemoryStore store) {
        this(store, MAX_REMEMBERED);
    }

    QuotaGuard(MemoryStore store, int maxRemembered) {
        this.store = store;
        this.maxRemembered = maxRemembered;
    }

    /** How many users' usages are remembered now. */
    int remembered() {
        return recent.size();
    }

    /** Room for a new agent's sleep-time companion, when it has one (the store checks the agent and its blocks). */
    void agent(AgentDefinition d) {
        if (d.sleeptime().isPresent()) {
            UserUsage u = store.usage(d.userId());
            check(d.userId(), u.agents(), 2);
        }
    }

    /** Room for a sleep-time companion about to be enabled: one more agent of the user's. */
    void companion(String user) {
        check(user, store.usage(user).agents(), 1);
    }

    /**
     * Room for a turn: the user is not past a quota of blocks, archival entries, notes or bytes (which the turn's tools
     * could add to), on a usage counted at most {@link #TURN_USAGE_AGE} ago.
     */
    void turn(String user) {
        long now = System.nanoTime();
        Counted c = recent.get(user);
        if (c == null || now - c.atNanos() > TURN_USAGE_AGE.toNanos()) {
            c = new Counted(store.usage(user), now);
            if (recent.size() >= maxRemembered && !recent.containsKey(user)) {
                recent.values().removeIf(old -> now - old.atNanos() > TURN_USAGE_AGE.toNanos());
                if (recent.size() >= maxRemembered) {
                    recent.clear(); // a bound, not a working size: the next turns count again
                }
            }
            recent.put(user, c);
        }
        UserUsage u = c.usage();
        UserQuotas quotas = store.quotas();
        past(user, "blocks", u.blocks(), quotas.blocks(), "delete blocks");
        past(user, "archival entries", u.archivalEntries(), quotas.archivalEntries(), "delete archival entries");
        past(user, "notes", u.notes(), quotas.notes(), "delete notes");
        past(user, "bytes in blocks, archival memory and notes", u.storedBytes(), quotas.storedBytes(),
                "delete or shorten blocks, archival entries or notes");
    }

    /**
     * Room for an upload whose text takes about {@code bytes}: refused at once, before its processing starts, when the
     * user's stored bytes would pass the quota (the store checks the parsed text again when it stores it).
     */
    void storedBytes(String user, long bytes) {
        long current = store.usage(user).storedBytes();
        long max = store.quotas().storedBytes();
        if (current + bytes > max) {
            throw new QuotaExceededException("User '" + user + "' stores " + current + " bytes; this upload would add about "
                    + bytes + ", past the quota of " + max + " bytes. Nothing was stored: delete files, blocks, archival "
                    + "entries or notes first.");
        }
    }

    private static void past(String user, String what, long current, long max, String remedy) {
        if (current > max) {
            throw new QuotaExceededException("User '" + user + "' has " + current + " " + what + ", past the quota of " + max
                    + " per user; the message was not sent: " + remedy + " first.");
        }
    }

    private void check(String user, long agents, long adding) {
        long max = store.quotas().agents();
        if (agents + adding > max) {
            throw new QuotaExceededException("User '" + user + "' has " + agents + " agents; this would make " + (agents + adding)
                    + " with the sleep-time companion, past the quota of " + max + " agents per user. Nothing was stored: "
                    + "delete an agent first.");
        }
    }
}
