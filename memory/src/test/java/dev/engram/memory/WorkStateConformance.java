package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * What every backend does with each agent's work state ({@link WorkStateStore}): task lists replaced whole and read
 * back in order, goals with one current, checkpoints and decisions newest first, everything scoped to its agent, and
 * every refused change leaving things as they were. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class WorkStateConformance {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope ANA_COACH = Scope.of("ana", "coach");
    private static final Scope BEN = Scope.of("ben", "helper");

    /** The store under test, fresh for each test. */
    protected abstract MemoryStore store();

    @Test
    void aTaskListIsReplacedWholeAndReadBackInOrder() {
        WorkStateStore work = store().work();
        assertThat(work.todos(ANA)).isEmpty();
        List<TodoItem> first = List.of(new TodoItem("read the brief", TodoStatus.COMPLETED),
                new TodoItem("write the store", TodoStatus.IN_PROGRESS), TodoItem.pending("écrire les tests ✅"));
        assertThat(work.writeTodos(ANA, first)).isEqualTo(first);
        assertThat(work.todos(ANA)).isEqualTo(first);
        List<TodoItem> second = List.of(TodoItem.pending("only this"));
        work.writeTodos(ANA, second);
        assertThat(work.todos(ANA)).isEqualTo(second);
        work.writeTodos(ANA, List.of());
        assertThat(work.todos(ANA)).isEmpty();
    }

    @Test
    void aTaskListTooLongOrWithABadItemIsRefusedAndTheListStaysAsItWas() {
        WorkStateStore work = store().work();
        List<TodoItem> kept = List.of(TodoItem.pending("keep me"));
        work.writeTodos(ANA, kept);
        List<TodoItem> tooMany = IntStream.rangeClosed(0, WorkStateStore.MAX_TODOS).mapToObj(i -> TodoItem.pending("t" + i)).toList();
        assertThatThrownBy(() -> work.writeTodos(ANA, tooMany)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most " + WorkStateStore.MAX_TODOS + " todos, got " + (WorkStateStore.MAX_TODOS + 1));
        List<TodoItem> withNull = new ArrayList<>(kept);
        withNull.add(null);
        assertThatThrownBy(() -> work.writeTodos(ANA, withNull)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> TodoItem.pending(" ")).hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> TodoItem.pending("x".repeat(WorkStateStore.MAX_TODO_CHARS + 1)))
                .hasMessageContaining("at most " + WorkStateStore.MAX_TODO_CHARS);
        assertThatThrownBy(() -> TodoStatus.fromWire("doing")).hasMessageContaining("pending, in_progress, completed");
        assertThat(work.todos(ANA)).isEqualTo(kept);
    }

    @Test
    void anotherAgentsOrUsersWorkStateIsNotThereAndTheirGoalsCannotBeTouched() {
        WorkStateStore work = store().work();
        work.writeTodos(ANA, List.of(TodoItem.pending("ana's")));
        Goal goal = work.createGoal(ANA, "Ship the release", "");
        work.checkpoint(ANA, "tests pass");
        assertThat(work.todos(ANA_COACH)).isEmpty();
        assertThat(work.todos(BEN)).isEmpty();
        assertThat(work.goals(BEN)).isEmpty();
        assertThat(work.goal(BEN, goal.id())).isEmpty();
        assertThat(work.goal(ANA_COACH, goal.id())).isEmpty();
        assertThat(work.snapshot(ANA_COACH)).isEqualTo(WorkState.EMPTY);
        assertThatThrownBy(() -> work.switchGoal(BEN, goal.id())).isInstanceOf(NotFoundException.class)
                .hasMessage("Goal '" + goal.id() + "' not found.");
        assertThatThrownBy(() -> work.completeGoal(ANA_COACH, goal.id(), "stolen")).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> work.entries(BEN, goal.id(), GoalEntry.Kind.CHECKPOINT, 5)).isInstanceOf(NotFoundException.class);
        assertThat(work.goal(ANA, goal.id())).contains(goal);
        assertThat(work.snapshot(ANA).checkpoints()).extracting(GoalEntry::text).containsExactly("tests pass");
    }

    @Test
    void aNewGoalBecomesCurrentSwitchingMovesItAndCompletingLeavesNoCurrentGoal() {
        WorkStateStore work = store().work();
        assertThat(work.currentGoal(ANA)).isEmpty();
        Goal first = work.createGoal(ANA, "  Plan the trip  ", "Lisbon in May");
        assertThat(first.title()).isEqualTo("Plan the trip");
        assertThat(first.current()).isTrue();
        Goal second = work.createGoal(ANA, "Book the hotel", "");
        assertThat(work.currentGoal(ANA)).map(Goal::id).contains(second.id());
        assertThat(work.goals(ANA)).extracting(Goal::id, Goal::current)
                .containsExactly(Tuple.tuple(first.id(), false),
                        Tuple.tuple(second.id(), true));
        assertThat(work.switchGoal(ANA, first.id()).current()).isTrue();
        assertThat(work.goals(ANA)).filteredOn(Goal::current).extracting(Goal::id).containsExactly(first.id());
        Goal done = work.completeGoal(ANA, first.id(), "itinerary agreed");
        assertThat(done.completed()).isTrue();
        assertThat(done.current()).isFalse();
        assertThat(done.outcome()).isEqualTo("itinerary agreed");
        assertThat(done.completedAt()).isPresent();
        assertThat(work.currentGoal(ANA)).isEmpty();
        assertThat(work.snapshot(ANA).openGoals()).extracting(Goal::id).containsExactly(second.id());
        assertThat(work.goal(ANA, first.id())).contains(done);
    }

    @Test
    void refusedGoalChangesLeaveEveryGoalAsItWas() {
        WorkStateStore work = store().work();
        Goal open = work.createGoal(ANA, "Open", "");
        Goal closed = work.createGoal(ANA, "Closed", "");
        work.completeGoal(ANA, closed.id(), "");
        List<Goal> before = work.goals(ANA);
        assertThatThrownBy(() -> work.switchGoal(ANA, closed.id())).hasMessageContaining("is completed");
        assertThatThrownBy(() -> work.completeGoal(ANA, closed.id(), "again")).hasMessageContaining("already completed");
        assertThatThrownBy(() -> work.switchGoal(ANA, "goal-missing")).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> work.createGoal(ANA, " ", "")).hasMessageContaining("title must not be blank");
        assertThatThrownBy(() -> work.createGoal(ANA, "t".repeat(WorkStateStore.MAX_TITLE_CHARS + 1), ""))
                .hasMessageContaining("at most " + WorkStateStore.MAX_TITLE_CHARS);
        assertThatThrownBy(() -> work.createGoal(ANA, "ok", "d".repeat(WorkStateStore.MAX_TEXT_CHARS + 1)))
                .hasMessageContaining("at most " + WorkStateStore.MAX_TEXT_CHARS);
        assertThatThrownBy(() -> work.completeGoal(ANA, open.id(), "o".repeat(WorkStateStore.MAX_TEXT_CHARS + 1)))
                .hasMessageContaining("at most " + WorkStateStore.MAX_TEXT_CHARS);
        assertThat(work.goals(ANA)).isEqualTo(before);
    }

    @Test
    void anAgentHasAtMostSoManyOpenGoals() {
        WorkStateStore work = store().work();
        for (int i = 0; i < WorkStateStore.MAX_OPEN_GOALS; i++) {
            work.createGoal(ANA, "goal " + i, "");
        }
        List<Goal> before = work.goals(ANA);
        assertThatThrownBy(() -> work.createGoal(ANA, "one too many", ""))
                .hasMessage("an agent has at most " + WorkStateStore.MAX_OPEN_GOALS + " open goals; complete one first");
        assertThat(work.goals(ANA)).isEqualTo(before);
        work.completeGoal(ANA, before.get(0).id(), "done");
        assertThat(work.createGoal(ANA, "now there is room", "").current()).isTrue();
    }

    @Test
    void checkpointsAndDecisionsGoOnTheCurrentGoalNewestFirstAndTheSnapshotHoldsTheLatest() {
        WorkStateStore work = store().work();
        assertThatThrownBy(() -> work.checkpoint(ANA, "orphan")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no current goal");
        Goal other = work.createGoal(ANA, "Other", "");
        work.checkpoint(ANA, "on the other goal");
        Goal goal = work.createGoal(ANA, "Migrate the database", "to PostgreSQL");
        for (int i = 1; i <= 5; i++) {
            work.checkpoint(ANA, "step " + i);
        }
        GoalEntry decision = work.decide(ANA, "use BIGSERIAL for order", "created_at can tie");
        assertThat(decision.kind()).isEqualTo(GoalEntry.Kind.DECISION);
        assertThat(decision.goalId()).isEqualTo(goal.id());
        assertThat(work.entries(ANA, goal.id(), GoalEntry.Kind.CHECKPOINT, 10)).extracting(GoalEntry::text)
                .containsExactly("step 5", "step 4", "step 3", "step 2", "step 1");
        assertThat(work.entries(ANA, other.id(), GoalEntry.Kind.CHECKPOINT, 10)).extracting(GoalEntry::text)
                .containsExactly("on the other goal");
        work.writeTodos(ANA, List.of(TodoItem.pending("a"), new TodoItem("b", TodoStatus.COMPLETED)));
        WorkState state = work.snapshot(ANA);
        assertThat(state.currentGoal()).map(Goal::id).contains(goal.id());
        assertThat(state.checkpoints()).extracting(GoalEntry::text).containsExactly("step 5", "step 4", "step 3");
        assertThat(state.decisions()).extracting(GoalEntry::text, GoalEntry::rationale)
                .containsExactly(Tuple.tuple("use BIGSERIAL for order", "created_at can tie"));
        assertThat(state.openTodos()).extracting(TodoItem::content).containsExactly("a");
        assertThat(state.openGoals()).extracting(Goal::id).containsExactly(other.id(), goal.id());
        assertThatThrownBy(() -> work.decide(ANA, " ", "")).hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> work.decide(ANA, "ok", "r".repeat(WorkStateStore.MAX_TEXT_CHARS + 1)))
                .hasMessageContaining("at most");
        assertThat(work.entries(ANA, goal.id(), GoalEntry.Kind.DECISION, 10)).hasSize(1);
    }
}
