package dev.engram.agents;

import dev.engram.memory.AgentRecord;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How far an agent's sleep-time companion has come, kept in the store with the companion's agent record (a
 * {@code sleeptime_progress} object beside its definition, which the definition's reader ignores), so that it
 * survives a restart on every backend without a table of its own.
 *
 * @param turns       the agent's turns since the companion last completed a run
 * @param seenThrough the id of the newest of the agent's messages a completed run covered (0: none yet)
 */
record SleeptimeProgress(int turns, long seenThrough) {
    private static final String FIELD = "sleeptime_progress";

    SleeptimeProgress withTurns(int n) {
        return new SleeptimeProgress(n, seenThrough);
    }

    /** The progress stored with the companion's record; none counted yet when it has none. */
    static SleeptimeProgress load(MemoryStore store, Scope companion) {
        JsonNode p = store.agents().get(companion).map(r -> Heartbeats.JSON.readTree(r.definition()).path(FIELD))
                .orElse(Heartbeats.JSON.missingNode());
        return new SleeptimeProgress(Math.max(0, p.path("turns").asInt(0)), Math.max(0, p.path("seen_through").asLong(0)));
    }

    /** Stores the progress with the companion's record (nothing when the companion was deleted meanwhile). */
    static void save(MemoryStore store, Scope companion, SleeptimeProgress progress) {
        store.agents().get(companion).ifPresent((AgentRecord r) -> {
            ObjectNode doc = (ObjectNode) Heartbeats.JSON.readTree(r.definition());
            doc.putObject(FIELD).put("turns", progress.turns()).put("seen_through", progress.seenThrough());
            store.agents().update(companion, r.name(), doc.toString());
        });
    }
}
