package dev.engram.memory.spi;

import dev.engram.memory.AgentRecord;
import dev.engram.memory.Scope;
import java.util.List;
import java.util.Optional;

/**
 * The agent records of a {@link MemoryBackend}: one opaque definition per scope.
 */
public interface AgentRows {
    /** Inserts the agent, or replaces the one of its scope. */
    void putAgent(AgentRecord agent);

    Optional<AgentRecord> agent(Scope scope);

    /** The user's agents with that name (several may share one), oldest first. */
    List<AgentRecord> agentsByName(String userId, String name);

    /** The user's agents, by name. */
    List<AgentRecord> listAgents(String userId);

    /** Returns whether there was one. */
    boolean deleteAgent(Scope scope);
}
