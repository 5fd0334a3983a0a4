package dev.engram.server;

import java.time.Clock;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At most one log line per kind of incident per window: the first of a kind is admitted; later ones within the
 * window are counted and suppressed; the first after the window is admitted with the count of those suppressed,
 * so the log still says how often it happened. Kinds are bounded ({@link #MAX_KINDS}): a flood of distinct kinds
 * starts the memory over rather than growing it.
 */
final class LogLimiter {
    /** More distinct kinds than this start the memory over. */
    static final int MAX_KINDS = 1_000;

    private record Seen(long windowStart, long suppressed) {
    }

    private final Clock clock;
    private final long windowMillis;
    private final ConcurrentHashMap<String, Seen> kinds = new ConcurrentHashMap<>();

    LogLimiter(Clock clock, Duration window) {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("the log window must be positive, got " + window);
        }
        this.clock = clock;
        this.windowMillis = window.toMillis();
    }

    /** The window, for messages. */
    Duration window() {
        return Duration.ofMillis(windowMillis);
    }

    /**
     * Whether an incident of {@code kind} is logged now: the number of incidents of that kind suppressed since the
     * last one logged, or empty when this one is suppressed (counted for the next).
     */
    OptionalLong admit(String kind) {
        long now = clock.millis();
        if (kinds.size() >= MAX_KINDS && !kinds.containsKey(kind)) {
            kinds.clear();
        }
        long[] admitted = {-1};
        kinds.compute(kind, (k, seen) -> {
            if (seen == null || now - seen.windowStart() >= windowMillis) {
                admitted[0] = seen == null ? 0 : seen.suppressed();
                return new Seen(now, 0);
            }
            return new Seen(seen.windowStart(), seen.suppressed() + 1);
        });
        return admitted[0] < 0 ? OptionalLong.empty() : OptionalLong.of(admitted[0]);
    }
}
