package dev.engram.agents;

import dev.engram.memory.Scope;
import java.util.Objects;
import java.util.Optional;

/**
 * Whose memory {@link MemoryManager#add} writes: a user's own (facts become the user's notes) or a user's agent (facts
 * become the agent's archival entries), unless {@link AddOptions#target()} says otherwise.
 *
 * @param userId  the user
 * @param agentId the agent; empty for the user's own memory
 */
public record MemoryScope(String userId, Optional<String> agentId) {
    public MemoryScope {
        Objects.requireNonNull(userId, "user id must not be null");
        Objects.requireNonNull(agentId, "agent id must not be null");
        if (userId.isBlank()) {
            throw new IllegalArgumentException("user id must not be blank");
        }
        if (agentId.filter(String::isBlank).isPresent()) {
            throw new IllegalArgumentException("agent id must not be blank");
        }
    }

    /** The user's own memory: notes. */
    public static MemoryScope user(String userId) {
        return new MemoryScope(userId, Optional.empty());
    }

    /** The memory of the user's agent: archival entries. */
    public static MemoryScope agent(String userId, String agentId) {
        return new MemoryScope(userId, Optional.of(agentId));
    }

    /** The agent's store scope, if this names an agent. */
    public Optional<Scope> scope() {
        return agentId.map(a -> Scope.of(userId, a));
    }
}
