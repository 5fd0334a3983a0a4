package dev.engram.agents;

import dev.engram.memory.ScheduleLimits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many scheduled turns each user has had in the last hour and day, against {@link ScheduleLimits}: kept by one
 * scheduler, in memory (several servers over one database each keep their own). A user none of whose firings is within
 * the last day is forgotten (swept once the users kept double since the last sweep, at least {@link #SWEEP_AT}), so
 * that it keeps the users who had a firing in the last day, not every user who ever had one. Thread-safe.
 */
final class FiringBudget {
    private static final Duration HOUR = Duration.ofHours(1);
    private static final Duration DAY = Duration.ofDays(1);

    private final ScheduleLimits limits;
    /** The fewest users kept before a sweep of those with no firing in the last day. */
    static final int SWEEP_AT = 1_024;

    private final Map<String, Firings> users = new ConcurrentHashMap<>();
    private volatile int sweepAt = SWEEP_AT;

    FiringBudget(ScheduleLimits limits) {
        this.limits = limits;
    }

    /** How many users are kept now. */
    int users() {
        return users.size();
    }

    /** Forgets the users none of whose firings is within the day before {@code now}. */
    private synchronized void sweep(Instant now) {
        Instant dayAgo = now.minus(DAY);
        users.forEach((user, f) -> {
            synchronized (f) {
                if (f.times.isEmpty() || !f.times.peekLast().isAfter(dayAgo)) {
                    users.remove(user, f);
                }
            }
        });
        sweepAt = Math.max(SWEEP_AT, users.size() * 2);
    }

    /** The firings of one user in the last day, oldest first, and whether a skip was logged since the last firing. */
    private static final class Firings {
        final Deque<Instant> times = new ArrayDeque<>();
        boolean skipLogged;
    }

    /** What {@link #take} decided: empty when the firing may go, else why not and whether this is the first skip to log. */
    record Refusal(String reason, boolean firstSkip) {
    }

    /** Counts a firing of the user's at {@code now} if the budget has room; else says why it has none. */
    Optional<Refusal> take(String user, Instant now) {
        if (users.size() >= sweepAt) {
            sweep(now);
        }
        Firings f = users.computeIfAbsent(user, u -> new Firings());
        synchronized (f) {
            if (users.get(user) != f) {
                return take(user, now); // swept meanwhile: count on the user's new entry
            }
            while (!f.times.isEmpty() && !f.times.peekFirst().isAfter(now.minus(DAY))) {
                f.times.removeFirst();
            }
            Instant hourAgo = now.minus(HOUR);
            long lastHour = f.times.stream().filter(t -> t.isAfter(hourAgo)).count();
            String reason = null;
            if (lastHour >= limits.firingsPerHour()) {
                reason = "user '" + user + "' had " + lastHour + " scheduled turns in the last hour, the most allowed ("
                        + limits.firingsPerHour() + " an hour)";
            } else if (f.times.size() >= limits.firingsPerDay()) {
                reason = "user '" + user + "' had " + f.times.size() + " scheduled turns in the last 24 hours, the most "
                        + "allowed (" + limits.firingsPerDay() + " a day)";
            }
            if (reason != null) {
                boolean first = !f.skipLogged;
                f.skipLogged = true;
                return Optional.of(new Refusal(reason, first));
            }
            f.times.addLast(now);
            f.skipLogged = false;
            return Optional.empty();
        }
    }
}
