package dev.engram.memory;

import java.util.Locale;

/** Where a {@link Run} is: Letta's {@code RunStatus}. */
public enum RunStatus {
    /** Recorded, not started yet. */
    CREATED,
    /** The turn is running. */
    RUNNING,
    /** The turn ended (also when it paused for an approval: the approval's turn is a run of its own). */
    COMPLETED,
    /** The turn failed. */
    FAILED,
    /** The turn was cancelled. */
    CANCELLED;

    /** Whether the run may still produce events. */
    public boolean isActive() {
        return this == CREATED || this == RUNNING;
    }

    /** Letta's name of the status ({@code running}, …). */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
