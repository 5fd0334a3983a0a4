package dev.engram.memory;

import dev.engram.memory.spi.WorkStateRows;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The todos and goals of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one
 * lock, and record each change in its one undo log.
 */
interface InMemoryWorkStateRows extends WorkStateRows {
    /**
     * Each agent's task list, the goals by id, and each goal's entries, oldest first; a list is replaced, never changed in
     * place (the undo log restores it).
     */
    record Tables(Map<Scope, List<TodoItem>> todos, Map<String, Goal> goals, Map<String, List<GoalEntry>> entries) {
        Tables() {
            this(new LinkedHashMap<>(), new LinkedHashMap<>(), new LinkedHashMap<>());
        }
    }

    /** The backend's work state. */
    Tables workTables();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default List<TodoItem> todos(Scope scope) {
        return workTables().todos().getOrDefault(scope, List.of());
    }

    @Override
    default void replaceTodos(Scope scope, List<TodoItem> list, Instant at) {
        undo().put(workTables().todos(), scope, List.copyOf(list));
    }

    @Override
    default void putGoal(Goal goal) {
        // a LinkedHashMap keeps a replaced key in its place: goals stay in creation order
        undo().put(workTables().goals(), goal.id(), goal);
    }

    @Override
    default Optional<Goal> goal(String id) {
        return Optional.ofNullable(workTables().goals().get(id));
    }

    @Override
    default List<Goal> goals(Scope scope) {
        return workTables().goals().values().stream().filter(g -> g.scope().equals(scope)).toList();
    }

    @Override
    default void insertGoalEntry(Scope scope, GoalEntry entry) {
        List<GoalEntry> next = new ArrayList<>(workTables().entries().getOrDefault(entry.goalId(), List.of()));
        next.add(entry);
        undo().put(workTables().entries(), entry.goalId(), List.copyOf(next));
    }

    @Override
    default List<GoalEntry> goalEntries(String goalId, GoalEntry.Kind kind, int limit) {
        List<GoalEntry> all = workTables().entries().getOrDefault(goalId, List.of());
        List<GoalEntry> out = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0 && out.size() < limit; i--) {
            if (all.get(i).kind() == kind) {
                out.add(all.get(i));
            }
        }
        return out;
    }

    @Override
    default int countGoalEntries(String goalId) {
        return workTables().entries().getOrDefault(goalId, List.of()).size();
    }
}
