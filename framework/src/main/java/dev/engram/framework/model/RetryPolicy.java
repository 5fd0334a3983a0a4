package dev.engram.framework.model;

import java.time.Duration;
import java.util.Objects;

/**
 * How 429s, 5xx answers and timeouts are retried: exponential backoff from {@code initialBackoff},
 * doubled each time up to {@code maxBackoff}, with full jitter, and a provider's {@code Retry-After}
 * honoured (capped at {@code maxBackoff}).
 *
 * @param maxAttempts    attempts in all, the first included; 1 means no retry
 * @param initialBackoff the first wait
 * @param maxBackoff     the longest wait
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("max attempts must be at least 1, got " + maxAttempts);
        }
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("backoffs must satisfy 0 <= initial <= max");
        }
    }

    /** 4 attempts, 0.5 s doubling to 30 s. */
    public static RetryPolicy defaults() {
        return new RetryPolicy(4, Duration.ofMillis(500), Duration.ofSeconds(30));
    }

    public static RetryPolicy none() {
        return new RetryPolicy(1, Duration.ZERO, Duration.ZERO);
    }

    /** The wait before attempt {@code attempt + 1} (attempt counts from 1), jittered in [0, backoff]. */
    Duration backoff(int attempt, java.util.random.RandomGenerator random) {
        long base = initialBackoff.toMillis() << Math.min(20, attempt - 1);
        long capped = Math.min(maxBackoff.toMillis(), base);
        return Duration.ofMillis(capped == 0 ? 0 : random.nextLong(capped + 1));
    }
}
