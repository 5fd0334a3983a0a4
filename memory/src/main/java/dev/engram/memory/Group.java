package dev.engram.memory;

import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * A multi-agent group of one user (Letta's groups): several of the user's agents that answer a message together, in
 * the way its {@linkplain GroupManager manager} says, and blocks shared with every member.
 *
 * @param id           {@code group-<uuid>}
 * @param userId       the user it belongs to
 * @param spec         its description, manager, members, shared blocks and hidden flag
 * @param turnsCounter how many group messages it has answered (a sleep-time group counts its main agent's turns)
 * @param createdAt    when it was created
 * @param updatedAt    when its spec or counter last changed
 */
public record Group(String id, String userId, GroupSpec spec, int turnsCounter, Instant createdAt, Instant updatedAt) {
    /** What every group id starts with. */
    public static final String ID_PREFIX = "group-";

    public Group {
        Checks.id(id, "group id");
        Checks.id(userId, "user id");
        Objects.requireNonNull(spec, "spec must not be null");
        if (turnsCounter < 0) {
            throw new IllegalArgumentException("turnsCounter must not be negative, got " + turnsCounter);
        }
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
    }

    /** Every agent the group involves: its manager agent, if any, then its members. */
    public Set<String> involvedAgents() {
        Set<String> out = new LinkedHashSet<>();
        spec.manager().managerAgentId().ifPresent(out::add);
        out.addAll(spec.agentIds());
        return out;
    }
}
