package dev.engram.mcp;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One server's circuit: closed while calls succeed; open for a cool-down after {@code threshold} consecutive failures,
 * refusing calls at once; then half-open, letting one trial call through, which closes it again or re-opens it.
 */
final class CircuitBreaker {
    private final int threshold;
    private final Duration coolDown;
    private final Clock clock;
    private int failures;
    private Instant openUntil;
    private boolean trialRunning;

    CircuitBreaker(int threshold, Duration coolDown, Clock clock) {
        this.threshold = threshold;
        this.coolDown = coolDown;
        this.clock = clock;
    }

    /** Whether a call may go ahead now; when the circuit is half-open, only the first asker gets the trial. */
    synchronized boolean tryAcquire() {
        if (openUntil == null) {
            return true;
        }
        if (clock.instant().isBefore(openUntil) || trialRunning) {
            return false;
        }
        trialRunning = true;
        return true;
    }

    synchronized void success() {
        failures = 0;
        openUntil = null;
        trialRunning = false;
    }

    /** Records a failure; returns whether it opened (or re-opened) the circuit. */
    synchronized boolean failure() {
        failures++;
        trialRunning = false;
        if (failures >= threshold) {
            openUntil = clock.instant().plus(coolDown);
            return true;
        }
        return false;
    }

    synchronized int failures() {
        return failures;
    }

    /** When the open circuit lets a trial through; empty when closed. */
    synchronized Optional<Instant> openUntil() {
        return Optional.ofNullable(openUntil);
    }

    /** Whether calls are refused right now. */
    synchronized boolean isOpen() {
        return openUntil != null && (clock.instant().isBefore(openUntil) || trialRunning);
    }
}
