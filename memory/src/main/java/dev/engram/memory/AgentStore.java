package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/**
 * Agent definitions, one per {@link Scope}: the store keeps each as an opaque JSON document that the
 * agent runtime writes and reads, so that an agent reloaded after a restart is the same agent. Names
 * are unique per user, like ids.
 *
 * <p>Deleting a definition leaves the agent's blocks, archival memory and messages in place under
 * its scope (recall memory is never deleted); an agent created again with the same id finds them.
 */
public interface AgentStore {
    /**
     * Stores a new agent.
     *
     * @throws DuplicateException       if the user already has an agent with this id or this name
     * @throws IllegalArgumentException if the name is blank or the definition is blank
     */
    AgentRecord create(Scope scope, String name, String definition);

    /**
     * Replaces an agent's name and definition.
     *
     * @throws NotFoundException  if the agent does not exist
     * @throws DuplicateException if another agent of the user has this name
     */
    AgentRecord update(Scope scope, String name, String definition);

    Optional<AgentRecord> get(Scope scope);

    Optional<AgentRecord> findByName(String userId, String name);

    /** The user's agents, by name. */
    List<AgentRecord> list(String userId);

    /** Removes the definition; returns whether there was one. Memory under the scope is kept. */
    boolean delete(Scope scope);
}
