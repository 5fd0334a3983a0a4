package dev.engram.memory.spi;

import dev.engram.memory.Run;
import dev.engram.memory.RunEvent;
import dev.engram.memory.Step;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The runs of a {@link MemoryBackend}, with the events a client may resume from and the steps (one per model call)
 * kept with them. Optional: the defaults throw.
 */
public interface RunRows {
    /** Stores a run, replacing the one of its id. Runs are optional, like identities: the defaults throw. */
    default void putRun(Run run) {
        throw noRuns();
    }

    /** The run of that id, whoever's it is. */
    default Optional<Run> run(String id) {
        throw noRuns();
    }

    /** The run of the user's agent in that conversation that started last. */
    default Optional<Run> latestRun(String userId, String agentId, String conversationId) {
        throw noRuns();
    }

    /** Adds events to a run (their sequence numbers are new for it). */
    default void appendRunEvents(String runId, List<RunEvent> events) {
        throw noRuns();
    }

    /** A run's events after sequence number {@code afterSeq}, oldest first, at most {@code limit}. */
    default List<RunEvent> runEvents(String runId, long afterSeq, int limit) {
        throw noRuns();
    }

    /** The sequence number of a run's last event; 0 when it has none (or only had events now dropped and none kept). */
    default long lastRunSeq(String runId) {
        throw noRuns();
    }

    /** Drops a run's events up to and including sequence number {@code throughSeq}. */
    default void deleteRunEvents(String runId, long throughSeq) {
        throw noRuns();
    }

    /**
     * Removes, with their events and steps, the runs that ended before {@code endedBefore} and the active runs last updated
     * before {@code staleBefore}; returns how many.
     */
    default int deleteRuns(Instant endedBefore, Instant staleBefore) {
        throw noRuns();
    }

    /** Every run of the user, oldest first (by start, then id). */
    default List<Run> userRuns(String userId) {
        throw noRuns();
    }

    /** Removes a run with its events and steps; returns whether there was one. */
    default boolean deleteRun(String id) {
        throw noRuns();
    }

    /** Stores steps of runs, replacing those of their ids. Steps are kept with runs: the defaults throw. */
    default void putSteps(List<Step> steps) {
        throw noRuns();
    }

    /** The step of that id, whoever's it is. */
    default Optional<Step> step(String id) {
        throw noRuns();
    }

    /** A run's steps, oldest first (by start, then id). */
    default List<Step> runSteps(String runId) {
        throw noRuns();
    }

    /** Every step of the user's runs, oldest first (by start, then id). */
    default List<Step> userSteps(String userId) {
        throw noRuns();
    }

    private static UnsupportedOperationException noRuns() {
        return new UnsupportedOperationException("this memory backend keeps no runs (it does not implement the run "
                + "methods of Rows)");
    }
}
