package dev.engram.memory;

import java.time.Instant;
import java.util.Objects;

/**
 * A stored agent definition.
 *
 * @param scope      the owning user and the agent's id
 * @param name       unique among the user's agents
 * @param definition the agent runtime's JSON document
 * @param createdAt  when it was created
 * @param updatedAt  when it was last updated
 */
public record AgentRecord(Scope scope, String name, String definition, Instant createdAt, Instant updatedAt) {
    public AgentRecord {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(definition, "definition");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(updatedAt, "updatedAt");
    }
}
