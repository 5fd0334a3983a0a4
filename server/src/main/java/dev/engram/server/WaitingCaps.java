package dev.engram.server;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many turns wait for their client (an approval, or a client tool's result), per user and on the server, within
 * the server's caps: a turn that would wait beyond one is not counted, and hears why. A user is kept count of only
 * while a turn of theirs waits.
 */
final class WaitingCaps {
    private final int maxPerUser;
    private final int maxPerServer;
    private final AtomicInteger waiting = new AtomicInteger();
    private final ConcurrentHashMap<String, AtomicInteger> byUser = new ConcurrentHashMap<>();

    WaitingCaps(int maxPerUser, int maxPerServer) {
        this.maxPerUser = maxPerUser;
        this.maxPerServer = maxPerServer;
    }

    /** How many turns wait now. */
    int waiting() {
        return waiting.get();
    }

    /** Counts a turn of the user's as waiting; empty if the caps allow it, else why not. */
    Optional<String> reserve(String user) {
        if (waiting.incrementAndGet() > maxPerServer) {
            waiting.decrementAndGet();
            return Optional.of("the server already has " + maxPerServer + " turns waiting for an approval, the most "
                    + "it allows; answer or cancel waiting turns, then try again");
        }
        boolean[] over = {false};
        // counted inside the map's compute, so that a user's entry goes when its count returns to 0 (release)
        byUser.compute(user, (u, mine) -> {
            AtomicInteger n = mine == null ? new AtomicInteger() : mine;
            over[0] = n.incrementAndGet() > maxPerUser;
            if (over[0]) {
                n.decrementAndGet();
            }
            return n.get() == 0 ? null : n;
        });
        if (over[0]) {
            waiting.decrementAndGet();
            return Optional.of("user '" + user + "' already has " + maxPerUser + " turns waiting for an approval, "
                    + "the most allowed per user; answer or cancel one of them, then try again");
        }
        return Optional.empty();
    }

    /** A turn of the user's no longer waits. */
    void release(String user) {
        byUser.computeIfPresent(user, (u, n) -> n.decrementAndGet() == 0 ? null : n);
        waiting.decrementAndGet();
    }

    /** How many users have turns waiting now (the users kept count of). */
    int users() {
        return byUser.size();
    }
}
