package dev.engram.server;

import dev.engram.agents.AgentDefinition;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewBlock;
import dev.engram.memory.UserUsage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks a user's {@link UserQuotas} before a request stores something: one count query per user
 * ({@link MemoryStore#usage}) for a create, and a usage at most {@link #TURN_USAGE_AGE} old before a turn (whose
 * tools may store blocks and archival entries too, so a user at a quota gets no more turns until they delete
 * something). Each check throws {@link QuotaExceededException}, naming the quota and the usage, before anything is
 * written.
 */
final class QuotaGuard {
    /** How old the usage checked before a turn may be: a turn then costs one count query per user per this time. */
    static final Duration TURN_USAGE_AGE = Duration.ofSeconds(5);

    private final MemoryStore store;
    private final UserQuotas quotas;
    private final ConcurrentHashMap<String, Counted> recent = new ConcurrentHashMap<>();

    private record Counted(UserUsage usage, long atNanos) {
    }

    QuotaGuard(MemoryStore store, UserQuotas quotas) {
        this.store = store;
        this.quotas = quotas;
    }

    /** Room for a new agent with its blocks (and its sleep-time companion, when it has one). */
    void agent(AgentDefinition d) {
        UserUsage u = store.usage(d.userId());
        long bytes = d.blocks().stream().mapToLong(b -> bytes(b.value())).sum();
        check(d.userId(), "agents", u.agents(), d.sleeptime().isPresent() ? 2 : 1, quotas.agents(), "delete an agent");
        check(d.userId(), "blocks", u.blocks(), d.blocks().size(), quotas.blocks(), "delete blocks");
        stored(d.userId(), u, bytes);
    }

    /** Room for a new block. */
    void block(String user, NewBlock block) {
        UserUsage u = store.usage(user);
        check(user, "blocks", u.blocks(), 1, quotas.blocks(), "delete blocks");
        stored(user, u, bytes(block.value()));
    }

    /** Room for a new archival entry. */
    void archival(String user, String content) {
        UserUsage u = store.usage(user);
        check(user, "archival entries", u.archivalEntries(), 1, quotas.archivalEntries(), "delete archival entries");
        stored(user, u, bytes(content));
    }

    /** Room for a block's value to change from {@code before} to {@code after}. */
    void replace(String user, String before, String after) {
        long growth = bytes(after) - bytes(before);
        if (growth > 0) {
            stored(user, store.usage(user), growth);
        }
    }

    /** Room for anything at all (an import, whose size is known only as it is read): the user is under every quota. */
    void room(String user) {
        under(user, store.usage(user));
    }

    /**
     * Room for a turn: the user is not past a quota of blocks, archival entries or bytes (which the turn's tools could
     * add to), on a usage counted at most {@link #TURN_USAGE_AGE} ago. A user at a quota still talks to their agents;
     * one whose agents' tools took them past it does not until something is deleted.
     */
    void turn(String user) {
        long now = System.nanoTime();
        Counted c = recent.get(user);
        if (c == null || now - c.atNanos() > TURN_USAGE_AGE.toNanos()) {
            c = new Counted(store.usage(user), now);
            recent.put(user, c);
        }
        UserUsage u = c.usage();
        past(user, "blocks", u.blocks(), quotas.blocks(), "delete blocks");
        past(user, "archival entries", u.archivalEntries(), quotas.archivalEntries(), "delete archival entries");
        past(user, "bytes in blocks and archival memory", u.storedBytes(), quotas.storedBytes(),
                "delete or shorten blocks or archival entries");
    }

    private static void past(String user, String what, long current, long max, String remedy) {
        if (current > max) {
            throw new QuotaExceededException("User '" + user + "' has " + current + " " + what + ", past the quota of " + max
                    + " per user (the agents' tools stored them); the message was not sent: " + remedy + " first.");
        }
    }

    private void under(String user, UserUsage u) {
        check(user, "agents", u.agents(), 1, quotas.agents(), "delete an agent");
        check(user, "blocks", u.blocks(), 1, quotas.blocks(), "delete blocks");
        check(user, "archival entries", u.archivalEntries(), 1, quotas.archivalEntries(), "delete archival entries");
        stored(user, u, 1);
    }

    private void stored(String user, UserUsage u, long adding) {
        if (u.storedBytes() + adding > quotas.storedBytes()) {
            throw new QuotaExceededException("User '" + user + "' stores " + u.storedBytes() + " bytes in blocks and "
                    + "archival memory; this would add " + adding + ", past the quota of " + quotas.storedBytes()
                    + " bytes. Nothing was stored: delete or shorten blocks or archival entries first.");
        }
    }

    private static void check(String user, String what, long current, long adding, long max, String remedy) {
        if (current + adding > max) {
            throw new QuotaExceededException("User '" + user + "' has " + current + " " + what + "; this would make "
                    + (current + adding) + ", past the quota of " + max + " " + what + " per user. Nothing was stored: "
                    + remedy + " first.");
        }
    }

    private static long bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
