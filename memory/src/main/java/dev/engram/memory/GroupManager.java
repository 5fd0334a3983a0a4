package dev.engram.memory;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link Group} takes turns among its agents (Letta's {@code manager_config}). Each type accepts only the
 * settings Letta gives it; a setting another type uses, or a missing one, is refused with a sentence naming the field
 * by its Letta name.
 *
 * @param type                    the manager's type
 * @param managerAgentId          the agent that manages: the supervisor, the dynamic group's chooser, the sleep-time
 *                                group's main agent; none for round robin
 * @param maxTurns                round robin and dynamic: the most agent turns one group message takes (default: one per
 *                                member)
 * @param terminationToken        dynamic: the text that, in a member's reply, ends the group's turn ({@code DONE!} by default)
 * @param sleeptimeAgentFrequency sleep-time: the members run after every this many turns of the main agent (default 1)
 */
public record GroupManager(Type type, Optional<String> managerAgentId, Optional<Integer> maxTurns,
        Optional<String> terminationToken, Optional<Integer> sleeptimeAgentFrequency) {
    /** Letta's default termination token of a dynamic group. */
    public static final String DEFAULT_TERMINATION_TOKEN = "DONE!";
    /** The most turns one group message may take. */
    public static final int MAX_TURNS = 100;

    /** The manager types Engram runs. */
    public enum Type {
        /** Each member speaks in turn. */
        ROUND_ROBIN,
        /** The manager agent answers and delegates to the members with the multi-agent tools. */
        SUPERVISOR,
        /** The manager agent chooses who speaks next, until a reply holds the termination token. */
        DYNAMIC,
        /** The main agent answers; the members, sleep-time agents, run on its recent conversation every N turns. */
        SLEEPTIME;

        /** Letta's name: {@code round_robin}, {@code supervisor}, {@code dynamic}, {@code sleeptime}. */
        public String lettaName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The type of Letta's name, if Engram runs it. */
        public static Optional<Type> ofLettaName(String name) {
            for (Type t : values()) {
                if (t.lettaName().equals(name)) {
                    return Optional.of(t);
                }
            }
            return Optional.empty();
        }
    }

    public GroupManager {
        Objects.requireNonNull(type, "manager_type must not be null");
        Objects.requireNonNull(managerAgentId, "managerAgentId must not be null");
        Objects.requireNonNull(maxTurns, "maxTurns must not be null");
        Objects.requireNonNull(terminationToken, "terminationToken must not be null");
        Objects.requireNonNull(sleeptimeAgentFrequency, "sleeptimeAgentFrequency must not be null");
        String kind = "a " + type.lettaName() + " group";
        if (type == Type.ROUND_ROBIN) {
            managerAgentId.ifPresent(m -> refuse("manager_agent_id", kind));
        } else {
            Checks.id(managerAgentId.orElseThrow(() -> new IllegalArgumentException("manager_agent_id is required for " + kind
                    + ": name the agent that manages it")), "manager_agent_id");
        }
        if (type != Type.ROUND_ROBIN && type != Type.DYNAMIC) {
            maxTurns.ifPresent(m -> refuse("max_turns", kind));
        }
        maxTurns.ifPresent(m -> {
            if (m < 1 || m > MAX_TURNS) {
                throw new IllegalArgumentException("max_turns must be between 1 and " + MAX_TURNS + ", got " + m);
            }
        });
        if (type == Type.DYNAMIC) {
            terminationToken = Optional.of(terminationToken.orElse(DEFAULT_TERMINATION_TOKEN));
            if (terminationToken.get().isBlank() || terminationToken.get().length() > 200) {
                throw new IllegalArgumentException("termination_token must be 1 to 200 characters and not blank");
            }
        } else {
            terminationToken.ifPresent(t -> refuse("termination_token", kind));
        }
        if (type == Type.SLEEPTIME) {
            sleeptimeAgentFrequency.ifPresent(f -> {
                if (f < 1) {
                    throw new IllegalArgumentException("sleeptime_agent_frequency must be at least 1, got " + f);
                }
            });
        } else {
            sleeptimeAgentFrequency.ifPresent(f -> refuse("sleeptime_agent_frequency", kind));
        }
    }

    private static void refuse(String field, String kind) {
        throw new IllegalArgumentException(field + " does not apply to " + kind + "; leave it out");
    }

    /** A round-robin manager giving each member one turn per message. */
    public static GroupManager roundRobin() {
        return new GroupManager(Type.ROUND_ROBIN, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** A supervisor manager: {@code managerAgentId} answers and delegates. */
    public static GroupManager supervisor(String managerAgentId) {
        return new GroupManager(Type.SUPERVISOR, Optional.of(managerAgentId), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** A dynamic manager with Letta's default token and a turn per member. */
    public static GroupManager dynamic(String managerAgentId) {
        return new GroupManager(Type.DYNAMIC, Optional.of(managerAgentId), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** A sleep-time manager whose members run after every turn of {@code managerAgentId}. */
    public static GroupManager sleeptime(String managerAgentId) {
        return new GroupManager(Type.SLEEPTIME, Optional.of(managerAgentId), Optional.empty(), Optional.empty(), Optional.empty());
    }
}
