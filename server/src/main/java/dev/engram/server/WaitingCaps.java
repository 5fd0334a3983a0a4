package dev.engram.server;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many turns wait for their client (an approval, or a client tool's result), per user and on the server, within
 * the server's caps: a turn that would wait beyond one is not counted, and hears why.
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
        AtomicInteger mine = byUser.computeIfAbsent(user, u -> new AtomicInteger());
        if (mine.incrementAndGet() > maxPerUser) {
            mine.decrementAndGet();
            waiting.decrementAndGet();
            return Optional.of("user '" + user + "' already has " + maxPerUser + " turns waiting for an approval, "
                    + "the most allowed per user; answer or cancel one of them, then try again");
        }
        return Optional.empty();
    }

    /** A turn of the user's no longer waits. */
    void release(String user) {
        byUser.get(user).decrementAndGet();
        waiting.decrementAndGet();
    }
}
