package dev.engram.memory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/** A clock that moves only when a test moves it (shipped in the engram-memory test-jar). Thread-safe. */
public final class ManualClock extends Clock {
    private volatile Instant now;

    public ManualClock(Instant start) {
        this.now = Objects.requireNonNull(start, "start");
    }

    /** Moves the clock forward by {@code d}; returns the new time. */
    public synchronized Instant advance(Duration d) {
        now = now.plus(d);
        return now;
    }

    public void set(Instant instant) {
        now = Objects.requireNonNull(instant, "instant");
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a manual clock is in UTC");
    }
}
