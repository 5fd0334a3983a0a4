package dev.engram.memory;

import java.util.Locale;

/** Where a {@link Job} is: the statuses of Letta's {@code JobStatus} that a background job of Engram's goes through. */
public enum JobStatus {
    /** Accepted and stored, not started yet. */
    CREATED,
    /** Being worked on. */
    RUNNING,
    /** Done: its result says what it did. */
    COMPLETED,
    /** Stopped with an error: its error says why. */
    FAILED,
    /** Stopped by its user before it ended: what it stored until then stays, its result says what. */
    CANCELLED;

    /** Whether the job may still run. */
    public boolean isActive() {
        return this == CREATED || this == RUNNING;
    }

    /** Letta's name of the status ({@code running}, …). */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
