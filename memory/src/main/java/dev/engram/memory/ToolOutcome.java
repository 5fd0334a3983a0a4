package dev.engram.memory;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * How a tool call ended and what it did, stored with the tool message that answers it (the message's content is
 * only what the model read). Views and prompts read these fields; nobody reads them from the content, so a tool
 * may return any text, "Error: ..." included, as data.
 *
 * @param status  how the call ended
 * @param effects what a successful call did
 */
public record ToolOutcome(Status status, Set<Effect> effects) {
    /** A call that ran and did nothing more than answer. */
    public static final ToolOutcome OK = new ToolOutcome(Status.OK, Set.of());

    /** How a tool call ended. */
    public enum Status {
        /** It ran and returned its output. */
        OK,
        /** It failed (unknown tool, invalid arguments, a tool error, a timeout); the content says why. */
        ERROR,
        /** The agent's runtime refused it before it ran (a tool rule, the loop breaker). */
        REFUSED,
        /** A policy or a person did not allow it (denied by policy, approval denied). Nothing ran. */
        DENIED,
        /** It was cancelled or interrupted; it may or may not have taken effect. */
        CANCELLED;

        /** The stored form: the name in lower case. */
        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What a call did beyond answering. */
    public enum Effect {
        /** It delivered a message to the user (the call's arguments hold the text). */
        MESSAGE_TO_USER,
        /** Another agent answered it. */
        AGENT_ANSWERED,
        /** It changed the agent's memory. */
        MEMORY_EDITED;

        /** The stored form: the name in lower case. */
        public String code() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public ToolOutcome {
        Checks.notNull(status, "status");
        effects = Set.copyOf(Checks.noNulls(Objects.requireNonNull(effects, "effects must not be null"), "effects"));
    }

    /** An outcome with these effects. */
    public static ToolOutcome of(Status status, Effect... effects) {
        Set<Effect> set = EnumSet.noneOf(Effect.class);
        for (Effect e : effects) {
            set.add(Objects.requireNonNull(e, "effects must not contain null"));
        }
        return new ToolOutcome(status, set);
    }

    /** Whether the call did not end {@link Status#OK}. */
    public boolean failed() {
        return status != Status.OK;
    }

    /** Whether the call had this effect. */
    public boolean has(Effect effect) {
        return effects.contains(effect);
    }

    /** The stored form of the effects: their codes, comma-separated, in declaration order; empty for none. */
    public String effectCodes() {
        return String.join(",", Arrays.stream(Effect.values()).filter(effects::contains).map(Effect::code).toList());
    }

    /**
     * The outcome stored as {@code status} and {@code effects} codes (see {@link Status#code()}, {@link #effectCodes()}).
     *
     * @throws IllegalArgumentException if a code is not one this version knows
     */
    public static ToolOutcome fromCodes(String status, String effects) {
        Status s = Status.valueOf(Objects.requireNonNull(status, "status").toUpperCase(Locale.ROOT));
        Set<Effect> set = EnumSet.noneOf(Effect.class);
        if (effects != null) {
            for (String code : effects.split(",")) {
                if (!code.isBlank()) {
                    set.add(Effect.valueOf(code.strip().toUpperCase(Locale.ROOT)));
                }
            }
        }
        return new ToolOutcome(s, set);
    }
}
