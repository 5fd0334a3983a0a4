package dev.engram.memory;

import java.time.Duration;
import java.util.Objects;

/**
 * How often schedules may fire, so that no one floods an agent's model with scheduled turns. The store
 * ({@link ScheduleStore#create}) refuses a cron schedule whose firings come closer than {@code minInterval} and a
 * one-off time more than {@code maxAhead} ahead (or not in the future); the agent runtime's scheduler
 * delivers at most {@code firingsPerHour} and {@code firingsPerDay} scheduled turns per user, and skips (logging
 * once) what comes beyond them. Build one from {@link #defaults()} with the {@code with...} methods.
 *
 * @param minInterval    the shortest time between two firings of a cron schedule; default 5 minutes
 * @param maxAhead       how far ahead a one-off time may be; default 5 years
 * @param firingsPerHour scheduled turns per user in any hour; default 60
 * @param firingsPerDay  scheduled turns per user in any 24 hours; default 500
 */
public record ScheduleLimits(Duration minInterval, Duration maxAhead, int firingsPerHour, int firingsPerDay) {
    private static final ScheduleLimits DEFAULTS = new ScheduleLimits(Duration.ofMinutes(5), Duration.ofDays(5 * 365), 60, 500);

    public ScheduleLimits {
        Objects.requireNonNull(minInterval, "minimum interval must not be null");
        Objects.requireNonNull(maxAhead, "maximum time ahead must not be null");
        if (minInterval.isNegative() || minInterval.isZero()) {
            throw new IllegalArgumentException("the minimum interval between firings must be positive, got " + minInterval);
        }
        if (maxAhead.compareTo(Duration.ofMinutes(1)) < 0 || maxAhead.compareTo(Duration.ofDays(100 * 365)) > 0) {
            throw new IllegalArgumentException("how far ahead a schedule may be must be between a minute and 100 years, got "
                    + maxAhead);
        }
        if (firingsPerHour < 1 || firingsPerDay < 1) {
            throw new IllegalArgumentException("firings per hour and per day must be at least 1, got " + firingsPerHour
                    + " and " + firingsPerDay);
        }
    }

    /** 5 minutes between firings, 5 years ahead, 60 firings per user an hour and 500 a day. */
    public static ScheduleLimits defaults() {
        return DEFAULTS;
    }

    public ScheduleLimits withMinInterval(Duration interval) {
        return new ScheduleLimits(interval, maxAhead, firingsPerHour, firingsPerDay);
    }

    public ScheduleLimits withMaxAhead(Duration ahead) {
        return new ScheduleLimits(minInterval, ahead, firingsPerHour, firingsPerDay);
    }

    /** Scheduled turns per user in any hour and in any 24 hours. */
    public ScheduleLimits withFirings(int perHour, int perDay) {
        return new ScheduleLimits(minInterval, maxAhead, perHour, perDay);
    }
}
