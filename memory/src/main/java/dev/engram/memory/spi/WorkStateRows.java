package dev.engram.memory.spi;

import dev.engram.memory.Goal;
import dev.engram.memory.GoalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.TodoItem;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What each agent works on, in a {@link MemoryBackend}: its task list, its goals and their checkpoints and
 * decisions. Optional: the defaults throw.
 */
public interface WorkStateRows {
    /** The agent's task list, in its order. Work state is optional, like runs: the defaults throw. */
    default List<TodoItem> todos(Scope scope) {
        throw noWorkState();
    }

    /** Replaces the agent's task list (an empty list clears it), stamped {@code at}. */
    default void replaceTodos(Scope scope, List<TodoItem> todos, Instant at) {
        throw noWorkState();
    }

    /** Stores a goal, replacing the one of its id. */
    default void putGoal(Goal goal) {
        throw noWorkState();
    }

    /** The goal of that id, whoever's it is. */
    default Optional<Goal> goal(String id) {
        throw noWorkState();
    }

    /** The agent's goals, oldest first. */
    default List<Goal> goals(Scope scope) {
        throw noWorkState();
    }

    /** Adds a checkpoint or decision to a goal of the agent of {@code scope}. */
    default void insertGoalEntry(Scope scope, GoalEntry entry) {
        throw noWorkState();
    }

    /** A goal's entries of that kind, newest first, at most {@code limit}. */
    default List<GoalEntry> goalEntries(String goalId, GoalEntry.Kind kind, int limit) {
        throw noWorkState();
    }

    /** How many entries (of both kinds) a goal has. */
    default int countGoalEntries(String goalId) {
        throw noWorkState();
    }

    private static UnsupportedOperationException noWorkState() {
        return new UnsupportedOperationException("this memory backend keeps no todos or goals (it does not implement the "
                + "work-state methods of Rows)");
    }
}
