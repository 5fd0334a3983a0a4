package dev.engram.agents;

import dev.engram.memory.Scope;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The turn each agent is working on, so that the message router and the subagent tool can find the
 * turn a tool call was made in (its session and the chain of agents waiting on it).
 */
final class ActiveTurns {
    private final Map<Scope, Turn> turns = new ConcurrentHashMap<>();

    void begin(Scope agent, Turn turn) {
        turns.put(agent, turn);
    }

    void end(Scope agent, Turn turn) {
        turns.remove(agent, turn);
    }

    Optional<Turn> of(Scope agent) {
        return Optional.ofNullable(turns.get(agent));
    }
}
