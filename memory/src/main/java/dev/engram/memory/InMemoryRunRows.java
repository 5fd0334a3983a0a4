package dev.engram.memory;

import dev.engram.memory.spi.RunRows;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The runs, their events and their steps, of {@link InMemoryBackend}. Its methods run inside the backend's write or
 * read, under its one lock, and record each change in its one undo log.
 */
interface InMemoryRunRows extends RunRows {
    /**
     * The runs, each run's kept events by sequence number (a run's map is replaced, never changed in place: the undo log
     * restores it), and the steps, each by id.
     */
    record Tables(Map<String, Run> runs, Map<String, NavigableMap<Long, RunEvent>> events, Map<String, Step> steps) {
        Tables() {
            this(new LinkedHashMap<>(), new LinkedHashMap<>(), new LinkedHashMap<>());
        }
    }

    /** The backend's runs. */
    Tables runTables();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putRun(Run run) {
        undo().put(runTables().runs(), run.id(), run);
    }

    @Override
    default Optional<Run> run(String id) {
        return Optional.ofNullable(runTables().runs().get(id));
    }

    @Override
    default Optional<Run> latestRun(String userId, String agentId, String conversationId) {
        return runTables().runs().values().stream().filter(r -> r.userId().equals(userId) && r.agentId().equals(agentId)
                && r.conversationId().equals(conversationId))
                .max(Comparator.comparing(Run::createdAt).thenComparing(Run::id));
    }

    @Override
    default void appendRunEvents(String runId, List<RunEvent> events) {
        TreeMap<Long, RunEvent> next = new TreeMap<>(runTables().events().getOrDefault(runId, new TreeMap<>()));
        events.forEach(e -> next.put(e.seq(), e));
        undo().put(runTables().events(), runId, next);
    }

    @Override
    default List<RunEvent> runEvents(String runId, long afterSeq, int limit) {
        return runTables().events().getOrDefault(runId, new TreeMap<>()).tailMap(afterSeq, false).values().stream()
                .limit(limit).toList();
    }

    @Override
    default long lastRunSeq(String runId) {
        NavigableMap<Long, RunEvent> events = runTables().events().get(runId);
        return events == null || events.isEmpty() ? 0 : events.lastKey();
    }

    @Override
    default void deleteRunEvents(String runId, long throughSeq) {
        NavigableMap<Long, RunEvent> events = runTables().events().get(runId);
        if (events != null) {
            TreeMap<Long, RunEvent> next = new TreeMap<>(events.tailMap(throughSeq, false));
            undo().put(runTables().events(), runId, next);
        }
    }

    @Override
    default int deleteRuns(Instant endedBefore, Instant staleBefore) {
        List<String> gone = runTables().runs().values().stream()
                .filter(r -> r.completedAt().map(t -> t.isBefore(endedBefore)).orElse(r.updatedAt().isBefore(staleBefore)))
                .map(Run::id).toList();
        gone.forEach(this::deleteRun);
        return gone.size();
    }

    @Override
    default List<Run> userRuns(String userId) {
        return runTables().runs().values().stream().filter(r -> r.userId().equals(userId))
                .sorted(Comparator.comparing(Run::createdAt).thenComparing(Run::id)).toList();
    }

    @Override
    default boolean deleteRun(String id) {
        undo().remove(runTables().events(), id);
        runTables().steps().values().stream().filter(s -> s.runId().equals(id)).map(Step::id).toList()
                .forEach(s -> undo().remove(runTables().steps(), s));
        return undo().remove(runTables().runs(), id);
    }

    @Override
    default void putSteps(List<Step> list) {
        list.forEach(s -> undo().put(runTables().steps(), s.id(), s));
    }

    @Override
    default Optional<Step> step(String id) {
        return Optional.ofNullable(runTables().steps().get(id));
    }

    @Override
    default List<Step> runSteps(String runId) {
        return runTables().steps().values().stream().filter(s -> s.runId().equals(runId))
                .sorted(Comparator.comparing(Step::startedAt).thenComparing(Step::id)).toList();
    }

    @Override
    default List<Step> userSteps(String userId) {
        return runTables().steps().values().stream().filter(s -> s.userId().equals(userId))
                .sorted(Comparator.comparing(Step::startedAt).thenComparing(Step::id)).toList();
    }
}
