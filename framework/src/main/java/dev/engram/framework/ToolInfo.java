package dev.engram.framework;

import java.time.Duration;
import java.util.Objects;

/**
 * A tool's fixed facts in one value: what the model calls it, what it is told about it, how safe it
 * is, how long a call may run and which end of a long output is kept. Validated at construction, so
 * a misnamed or undescribed tool fails when it is defined, not when it is first called.
 *
 * <pre>{@code
 * static final ToolInfo INFO = ToolInfo.of("add", "Adds two integers and returns the sum.", SafetyTier.READ_ONLY);
 * }</pre>
 *
 * @param name        {@code ^[a-zA-Z0-9_-]{1,64}$}
 * @param description what the tool does, when to use it and what it returns, written for a model
 * @param tier        how much harm a call can do
 * @param timeout     how long a call may run before it is interrupted; positive
 * @param truncation  which end of an over-long output to keep
 */
public record ToolInfo(String name, String description, SafetyTier tier, Duration timeout, Truncation truncation) {
    /** The timeout a tool gets when none is given. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /** @throws ToolDefinitionException if a fact is missing or unusable, saying which */
    public ToolInfo {
        ToolNames.requireValid(name);
        ToolNames.requireDescription(name, description);
        if (tier == null) {
            throw new ToolDefinitionException("Tool '" + name + "' has no safety tier; give it READ_ONLY, SIDE_EFFECTING or PRIVILEGED.");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new ToolDefinitionException("Tool '" + name + "' has timeout " + timeout + "; give it a positive duration.");
        }
        Objects.requireNonNull(truncation, "truncation must not be null");
    }

    /** With the default timeout (30 s) and truncation (keep the head). */
    public static ToolInfo of(String name, String description, SafetyTier tier) {
        return new ToolInfo(name, description, tier, DEFAULT_TIMEOUT, Truncation.KEEP_HEAD);
    }

    public ToolInfo withTimeout(Duration newTimeout) {
        return new ToolInfo(name, description, tier, newTimeout, truncation);
    }

    public ToolInfo withTruncation(Truncation newTruncation) {
        return new ToolInfo(name, description, tier, timeout, newTruncation);
    }
}
