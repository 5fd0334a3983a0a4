package dev.engram.memory;

import java.time.Instant;
import java.util.Optional;

/**
 * A message an agent will receive later, once or again and again: a reminder its user asked for, or a
 * check the agent set for itself. Kept in the store, so that it survives restarts; a scheduler in the
 * agent runtime delivers it as a turn when it is due.
 *
 * @param id           {@code sched-<uuid>}
 * @param scope        the agent that receives it, and its user
 * @param sessionId    the session it is delivered in
 * @param message      what the agent receives
 * @param timing       when it fires
 * @param status       whether it will still fire
 * @param nextRunAt    when it fires next; empty unless {@link Status#ACTIVE}
 * @param lastRunAt    when it last fired
 * @param runs         how many times it fired
 * @param claimedUntil while a scheduler delivers it, until when that scheduler holds it (another may take it after)
 * @param version      increases with every change; writes compare it
 * @param createdAt    when it was created
 * @param updatedAt    when it last changed
 */
public record Schedule(String id, Scope scope, String sessionId, String message, ScheduleTiming timing, Status status,
        Optional<Instant> nextRunAt, Optional<Instant> lastRunAt, int runs, Optional<Instant> claimedUntil, long version,
        Instant createdAt, Instant updatedAt) {

    /** Whether a schedule will still fire. */
    public enum Status {
        /** Waiting for its next firing. */
        ACTIVE,
        /** A one-off schedule that fired. */
        DONE,
        /** Cancelled before it finished. */
        CANCELLED
    }

    public Schedule {
        Checks.id(id, "id");
        Checks.notNull(scope, "scope");
        Checks.id(sessionId, "session id");
        Checks.text(message, "message");
        Checks.notNull(timing, "timing");
        Checks.notNull(status, "status");
        Checks.notNull(nextRunAt, "nextRunAt");
        Checks.notNull(lastRunAt, "lastRunAt");
        Checks.notNull(claimedUntil, "claimedUntil");
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
        if ((status == Status.ACTIVE) != nextRunAt.isPresent()) {
            throw new IllegalArgumentException("an " + status + " schedule " + (nextRunAt.isPresent() ? "has no" : "needs a")
                    + " next run time");
        }
        if (runs < 0) {
            throw new IllegalArgumentException("runs must not be negative, got " + runs);
        }
    }

    /** Whether it will still fire. */
    public boolean active() {
        return status == Status.ACTIVE;
    }

    Schedule with(Status newStatus, Optional<Instant> next, Optional<Instant> lastRun, int newRuns, Optional<Instant> claim,
            Instant at) {
        return new Schedule(id, scope, sessionId, message, timing, newStatus, next, lastRun, newRuns, claim, version + 1,
                createdAt, at);
    }
}
