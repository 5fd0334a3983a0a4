package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/**
 * What an agent is working on, as its prompt shows it ({@link WorkStateStore#snapshot}): its task list, its current
 * goal with that goal's latest checkpoints and decisions (newest first), and how many goals it has open.
 *
 * @param todos       the task list, in its order
 * @param currentGoal the current goal, if any
 * @param checkpoints the current goal's latest checkpoints, newest first; empty without a current goal
 * @param decisions   the current goal's latest decisions, newest first; empty without a current goal
 * @param openGoals   the agent's goals not completed (the current one included), oldest first
 */
public record WorkState(List<TodoItem> todos, Optional<Goal> currentGoal, List<GoalEntry> checkpoints,
        List<GoalEntry> decisions, List<Goal> openGoals) {
    /** An agent with no todos and no goals. */
    public static final WorkState EMPTY = new WorkState(List.of(), Optional.empty(), List.of(), List.of(), List.of());

    public WorkState {
        todos = List.copyOf(todos);
        Checks.notNull(currentGoal, "currentGoal");
        checkpoints = List.copyOf(checkpoints);
        decisions = List.copyOf(decisions);
        openGoals = List.copyOf(openGoals);
    }

    /** Whether there is nothing to show: no todos and no current goal. */
    public boolean isEmpty() {
        return todos.isEmpty() && currentGoal.isEmpty();
    }

    /** The todos not completed yet. */
    public List<TodoItem> openTodos() {
        return todos.stream().filter(t -> t.status() != TodoStatus.COMPLETED).toList();
    }
}
