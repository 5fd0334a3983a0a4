package dev.engram.agents;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * An agent's sleep-time companion (Letta's {@code enable_sleeptime}): a second agent that, between the
 * agent's turns, reads the recent conversation and reorganises the agent's blocks and archival memory
 * with the same tools and permissions, its edits recorded in block history as its own.
 *
 * @param everyMessages run after this many messages to the agent (at least 1)
 * @param idleAfter     also run when the agent has had no message for this long, if set
 * @param model         the companion's model spec; it can be a cheaper one than the agent's
 * @param maxSteps      the companion's step cap per run
 */
public record SleeptimeSettings(int everyMessages, Optional<Duration> idleAfter, String model, int maxSteps) {
    /** After every 5 messages, at most 5 steps. */
    public static final int DEFAULT_EVERY = 5;
    public static final int DEFAULT_MAX_STEPS = 5;

    public SleeptimeSettings {
        if (everyMessages < 1) {
            throw new IllegalArgumentException("a sleep-time agent runs after at least 1 message, got " + everyMessages);
        }
        Objects.requireNonNull(idleAfter, "idleAfter").ifPresent(d -> {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("the idle time of a sleep-time agent must be positive, got " + d);
            }
        });
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("a sleep-time agent needs a model spec");
        }
        if (maxSteps < 1) {
            throw new IllegalArgumentException("a sleep-time agent's step cap must be at least 1, got " + maxSteps);
        }
    }

    /** The defaults, on {@code model}. */
    public static SleeptimeSettings of(String model) {
        return new SleeptimeSettings(DEFAULT_EVERY, Optional.empty(), model, DEFAULT_MAX_STEPS);
    }
}
