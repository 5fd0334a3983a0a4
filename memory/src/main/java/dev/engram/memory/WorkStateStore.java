package dev.engram.memory;

import dev.engram.memory.spi.Rows;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What each agent is working on: its task list ({@link TodoItem}, replaced as a whole) and its goals ({@link Goal}),
 * one of them current, with checkpoints and decisions recorded on them ({@link GoalEntry}). The agent runtime shows
 * the {@linkplain #snapshot snapshot} in the agent's prompt. Backends keep them through the optional work-state methods
 * of {@link dev.engram.memory.spi.Rows}; over a backend without them every method here throws
 * {@link UnsupportedOperationException}.
 *
 * <p>Everything is read and changed as the scope's: another agent's (or user's) todos and goals are not there, and a
 * goal id of another agent is "not found". Every refused change (too long, too many, unknown goal) throws before
 * anything is stored.
 */
public final class WorkStateStore {
    /** The most todos in one agent's list. */
    public static final int MAX_TODOS = 100;
    /** The longest todo, in characters. */
    public static final int MAX_TODO_CHARS = 1_000;
    /** The longest goal title, in characters. */
    public static final int MAX_TITLE_CHARS = 200;
    /** The longest goal description, outcome, checkpoint, decision or rationale, in characters. */
    public static final int MAX_TEXT_CHARS = 4_000;
    /** The most goals an agent has open (not completed) at once. */
    public static final int MAX_OPEN_GOALS = 50;
    /** The most checkpoints and decisions recorded on one goal. */
    public static final int MAX_ENTRIES_PER_GOAL = 1_000;
    /** The latest checkpoints of the current goal a {@link #snapshot} holds. */
    public static final int SNAPSHOT_CHECKPOINTS = 3;
    /** The latest decisions of the current goal a {@link #snapshot} holds. */
    public static final int SNAPSHOT_DECISIONS = 5;

    private final StoreCore store;

    WorkStateStore(StoreCore store) {
        this.store = store;
    }

    /** The scope's task list, in its order. */
    public List<TodoItem> todos(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(rows -> rows.todos(scope));
    }

    /**
     * Replaces the scope's task list with {@code todos} (an empty list clears it) and returns it.
     *
     * @throws IllegalArgumentException if there are more than {@link #MAX_TODOS} (nothing changes)
     */
    public List<TodoItem> writeTodos(Scope scope, List<TodoItem> todos) {
        Checks.notNull(scope, "scope");
        Checks.noNulls(todos, "todos");
        if (todos.size() > MAX_TODOS) {
            throw new IllegalArgumentException("a task list has at most " + MAX_TODOS + " todos, got " + todos.size()
                    + "; merge or drop some");
        }
        List<TodoItem> copy = List.copyOf(todos);
        return store.write(rows -> {
            rows.replaceTodos(scope, copy, store.now());
            return copy;
        });
    }

    /**
     * Creates an open goal of the scope's agent and makes it the current one (the former current goal stays open).
     *
     * @throws IllegalArgumentException if the title is blank or too long, the description too long, or the agent
     *                                  already has {@link #MAX_OPEN_GOALS} open goals (nothing changes)
     */
    public Goal createGoal(Scope scope, String title, String description) {
        Checks.notNull(scope, "scope");
        checkTitle(title);
        checkText(description, "goal description");
        return store.write(rows -> {
            List<Goal> goals = rows.goals(scope);
            long open = goals.stream().filter(g -> !g.completed()).count();
            if (open >= MAX_OPEN_GOALS) {
                throw new IllegalArgumentException("an agent has at most " + MAX_OPEN_GOALS + " open goals; complete one first");
            }
            Instant now = store.now();
            unsetCurrent(rows, goals, now);
            Goal goal = new Goal(Ids.next("goal"), scope.userId(), scope.agentId(), title.strip(), description.strip(),
                    false, true, "", now, now, Optional.empty());
            rows.putGoal(goal);
            return goal;
        });
    }

    /**
     * Makes the scope's open goal of that id the current one.
     *
     * @throws NotFoundException        if the agent has no goal of that id
     * @throws IllegalArgumentException if that goal is completed (nothing changes)
     */
    public Goal switchGoal(Scope scope, String goalId) {
        Checks.notNull(scope, "scope");
        return store.write(rows -> {
            Goal goal = own(rows, scope, goalId);
            if (goal.completed()) {
                throw new IllegalArgumentException("goal '" + goalId + "' is completed; create a new goal instead");
            }
            if (goal.current()) {
                return goal;
            }
            Instant now = store.now();
            unsetCurrent(rows, rows.goals(scope), now);
            Goal switched = goal.withCurrent(true, now);
            rows.putGoal(switched);
            return switched;
        });
    }

    /**
     * Completes the scope's goal of that id with how it ended; if it was current, the agent has no current goal after.
     *
     * @throws NotFoundException        if the agent has no goal of that id
     * @throws IllegalArgumentException if it is already completed or the outcome is too long (nothing changes)
     */
    public Goal completeGoal(Scope scope, String goalId, String outcome) {
        Checks.notNull(scope, "scope");
        checkText(outcome, "goal outcome");
        return store.write(rows -> {
            Goal goal = own(rows, scope, goalId);
            if (goal.completed()) {
                throw new IllegalArgumentException("goal '" + goalId + "' is already completed");
            }
            Instant now = store.now();
            Goal done = new Goal(goal.id(), goal.userId(), goal.agentId(), goal.title(), goal.description(), true, false,
                    outcome.strip(), goal.createdAt(), now, Optional.of(now));
            rows.putGoal(done);
            return done;
        });
    }

    /** The scope's goal of that id. */
    public Optional<Goal> goal(Scope scope, String goalId) {
        Checks.notNull(scope, "scope");
        Checks.notNull(goalId, "goal id");
        return store.read(rows -> rows.goal(goalId)).filter(g -> g.scope().equals(scope));
    }

    /** The scope's goals, oldest first. */
    public List<Goal> goals(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(rows -> rows.goals(scope));
    }

    /** The scope's current goal, if it has one. */
    public Optional<Goal> currentGoal(Scope scope) {
        return goals(scope).stream().filter(Goal::current).findFirst();
    }

    /**
     * Records progress on the scope's current goal.
     *
     * @throws IllegalArgumentException if the agent has no current goal, the text is blank or too long, or the goal
     *                                  has {@link #MAX_ENTRIES_PER_GOAL} entries (nothing changes)
     */
    public GoalEntry checkpoint(Scope scope, String progress) {
        return addEntry(scope, GoalEntry.Kind.CHECKPOINT, progress, "");
    }

    /**
     * Records a decision, and why, on the scope's current goal.
     *
     * @throws IllegalArgumentException as {@link #checkpoint}, or if the rationale is too long (nothing changes)
     */
    public GoalEntry decide(Scope scope, String decision, String rationale) {
        return addEntry(scope, GoalEntry.Kind.DECISION, decision, rationale);
    }

    /**
     * The latest entries of that kind on the scope's goal, newest first, at most {@code limit}.
     *
     * @throws NotFoundException if the agent has no goal of that id
     */
    public List<GoalEntry> entries(Scope scope, String goalId, GoalEntry.Kind kind, int limit) {
        Checks.notNull(scope, "scope");
        Checks.notNull(kind, "kind");
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, got " + limit);
        }
        return store.read(rows -> {
            own(rows, scope, goalId);
            return rows.goalEntries(goalId, kind, limit);
        });
    }

    /** What the scope's agent is working on, in one read, as its prompt shows it. */
    public WorkState snapshot(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(rows -> {
            List<TodoItem> todos = rows.todos(scope);
            List<Goal> goals = rows.goals(scope);
            List<Goal> open = goals.stream().filter(g -> !g.completed()).toList();
            Optional<Goal> current = goals.stream().filter(Goal::current).findFirst();
            if (current.isEmpty()) {
                return new WorkState(todos, current, List.of(), List.of(), open);
            }
            String id = current.get().id();
            return new WorkState(todos, current, rows.goalEntries(id, GoalEntry.Kind.CHECKPOINT, SNAPSHOT_CHECKPOINTS),
                    rows.goalEntries(id, GoalEntry.Kind.DECISION, SNAPSHOT_DECISIONS), open);
        });
    }

    private GoalEntry addEntry(Scope scope, GoalEntry.Kind kind, String text, String rationale) {
        Checks.notNull(scope, "scope");
        Checks.unicode(text, kind.wire());
        if (text.isBlank()) {
            throw new IllegalArgumentException("a " + kind.wire() + " must not be blank; say what it records");
        }
        checkText(text, kind.wire());
        checkText(rationale, "rationale");
        return store.write(rows -> {
            Goal goal = rows.goals(scope).stream().filter(Goal::current).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("there is no current goal to record a " + kind.wire()
                            + " on; create a goal or switch to one first"));
            if (rows.countGoalEntries(goal.id()) >= MAX_ENTRIES_PER_GOAL) {
                throw new IllegalArgumentException("goal '" + goal.id() + "' already has " + MAX_ENTRIES_PER_GOAL
                        + " checkpoints and decisions, the most kept; complete it and create a new goal");
            }
            GoalEntry entry = new GoalEntry(Ids.next("gent"), goal.id(), kind, text.strip(), rationale.strip(), store.now());
            rows.insertGoalEntry(scope, entry);
            return entry;
        });
    }

    private static Goal own(Rows rows, Scope scope, String goalId) {
        Checks.notNull(goalId, "goal id");
        return rows.goal(goalId).filter(g -> g.scope().equals(scope))
                .orElseThrow(() -> new NotFoundException("Goal '" + goalId + "' not found."));
    }

    private static void unsetCurrent(Rows rows, List<Goal> goals, Instant now) {
        for (Goal g : goals) {
            if (g.current()) {
                rows.putGoal(g.withCurrent(false, now));
            }
        }
    }

    private static void checkTitle(String title) {
        Checks.unicode(title, "goal title");
        if (title.isBlank()) {
            throw new IllegalArgumentException("a goal's title must not be blank; say what the goal is");
        }
        if (title.length() > MAX_TITLE_CHARS) {
            throw new IllegalArgumentException("a goal title has at most " + MAX_TITLE_CHARS + " characters, got "
                    + title.length() + "; put the rest in its description");
        }
    }

    private static void checkText(String text, String what) {
        Checks.unicode(text, what);
        if (text.length() > MAX_TEXT_CHARS) {
            throw new IllegalArgumentException("a " + what + " has at most " + MAX_TEXT_CHARS + " characters, got "
                    + text.length() + "; shorten it");
        }
    }
}
