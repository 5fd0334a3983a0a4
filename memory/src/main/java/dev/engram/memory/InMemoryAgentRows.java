package dev.engram.memory;

import dev.engram.memory.spi.AgentRows;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The agent records of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one
 * lock, and record each change in its one undo log.
 */
interface InMemoryAgentRows extends AgentRows {
    /** Every agent record by its scope. */
    Map<Scope, AgentRecord> agentTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putAgent(AgentRecord agent) {
        undo().put(agentTable(), agent.scope(), agent);
    }

    @Override
    default Optional<AgentRecord> agent(Scope scope) {
        return Optional.ofNullable(agentTable().get(scope));
    }

    @Override
    default List<AgentRecord> agentsByName(String userId, String name) {
        return agentTable().values().stream().filter(a -> a.scope().userId().equals(userId) && a.name().equals(name))
                .sorted(Comparator.comparing(AgentRecord::createdAt).thenComparing(a -> a.scope().agentId())).toList();
    }

    @Override
    default List<AgentRecord> listAgents(String userId) {
        return agentTable().values().stream().filter(a -> a.scope().userId().equals(userId))
                .sorted(Comparator.comparing(AgentRecord::name)).toList();
    }

    @Override
    default boolean deleteAgent(Scope scope) {
        return undo().remove(agentTable(), scope);
    }
}
