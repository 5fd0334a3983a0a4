package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The steps of runs on one backend: written with a run's events or its end (never alone), each its user's, with
 * feedback, deleted and purged with their run. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class StepConformance {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-25T08:00:00Z"));
    private MemoryStore runsStore;

    /** The open store under test. */
    protected abstract MemoryStore store();

    @BeforeEach
    void clockedStore() {
        runsStore = MemoryStore.over(store().backend(), clock);
    }

    private Step step(Run run, int n) {
        Instant start = clock.instant().plusMillis(n * 10L);
        return new Step(Step.newId(), run.userId(), run.agentId(), run.id(), "openai/gpt-4o-mini", "openai", 100 + n, 7,
                "{\"message_ids\":[1,2]}", "{\"text\":\"step " + n + "\"}", List.of(3L + n, 4L + n), "tool_call", "success",
                start, Duration.ofNanos(1_234_567), start.plusMillis(5), "", List.of());
    }

    @Test
    void stepsAreStoredWithTheRunsEndAndReadBackAsTheUsers() {
        Run run = runsStore.runs().start(Scope.of("ana", "helper"), "default", false);
        Step first = step(run, 1);
        Step second = step(run, 2);
        runsStore.runs().finish("ana", run.id(), RunStatus.COMPLETED, "end_turn", List.of(second, first));

        assertThat(runsStore.runs().steps("ana", run.id())).containsExactly(first, second);
        assertThat(runsStore.runs().step("ana", first.id())).contains(first);
        assertThat(runsStore.runs().step("bob", first.id())).isEmpty();
        assertThat(runsStore.runs().steps("ana")).containsExactly(first, second);
        assertThat(runsStore.runs().steps("bob")).isEmpty();
        assertThatThrownBy(() -> runsStore.runs().steps("bob", run.id())).isInstanceOf(NotFoundException.class);
        Step read = runsStore.runs().step("ana", first.id()).orElseThrow();
        assertThat(read.messageIds()).containsExactly(4L, 5L);
        assertThat(read.modelTime()).isEqualTo(Duration.ofNanos(1_234_567));
        assertThat(read.totalTokens()).isEqualTo(108);
    }

    @Test
    void stepsRideWithABackgroundRunsEventsAndAfterAnEarlierEnd() {
        Run run = runsStore.runs().start(Scope.of("ana", "helper"), "default", true);
        Step first = step(run, 1);
        runsStore.runs().append("ana", run.id(), List.of(new RunEvent(1, "", "{}")), 100, List.of(first));
        assertThat(runsStore.runs().steps("ana", run.id())).containsExactly(first);
        // a cancel ended the run first: the turn's last step is still kept when its server ends the run
        runsStore.runs().finish("ana", run.id(), RunStatus.CANCELLED, "cancelled");
        Step last = step(run, 2);
        Run ended = runsStore.runs().finish("ana", run.id(), RunStatus.COMPLETED, "end_turn", List.of(last));
        assertThat(ended.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runsStore.runs().steps("ana", run.id())).containsExactly(first, last);
    }

    @Test
    void stepsAreAddedAsTakenInTheCallersUnitAlsoToAnEndedRunAndAMissingRunTakesNone() {
        Run run = runsStore.runs().start(Scope.of("ana", "helper"), "default", false);
        Step first = step(run, 1);
        Block block = runsStore.inTransaction(tx -> {
            Block b = tx.blocks().create(Scope.of("ana", "helper"), NewBlock.builder("human").value("Ana").build());
            assertThat(tx.runs().addSteps("ana", run.id(), List.of(first))).isTrue();
            return b;
        });
        assertThat(runsStore.runs().steps("ana", run.id())).containsExactly(first);
        assertThat(runsStore.runs().get("ana", run.id()).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
        // a unit that rolls back takes its step with it
        Step lost = step(run, 2);
        assertThatThrownBy(() -> runsStore.useTransaction(tx -> {
            tx.runs().addSteps("ana", run.id(), List.of(lost));
            throw new IllegalStateException("the step failed");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(runsStore.runs().steps("ana", run.id())).containsExactly(first);
        // after a cancel ended the run, a step still taken is kept; written twice, it is stored once
        runsStore.runs().finish("ana", run.id(), RunStatus.CANCELLED, "cancelled");
        Step last = step(run, 3);
        assertThat(runsStore.runs().addSteps("ana", run.id(), List.of(last))).isTrue();
        runsStore.runs().finish("ana", run.id(), RunStatus.COMPLETED, "end_turn", List.of(last));
        assertThat(runsStore.runs().steps("ana", run.id())).containsExactly(first, last);
        // another user's run, or none: nothing stored, and the caller's unit is not spoiled
        Step other = step(run, 4);
        boolean added = runsStore.inTransaction(tx -> tx.runs().addSteps("bob", run.id(), List.of(other))
                | tx.runs().addSteps("ana", "run-missing", List.of(other)));
        assertThat(added).isFalse();
        assertThat(runsStore.runs().steps("ana", run.id())).containsExactly(first, last);
        assertThat(runsStore.blocks().get(Scope.of("ana", "helper"), "human")).contains(block);
        Run another = runsStore.runs().start(Scope.of("ana", "helper"), "default", false);
        assertThatThrownBy(() -> runsStore.runs().addSteps("ana", another.id(), List.of(step(run, 5))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not of run '" + another.id() + "'");
        assertThat(runsStore.runs().steps("ana", another.id())).isEmpty();
    }

    @Test
    void aStepOfAnotherRunIsRejectedAndNothingIsStored() {
        Run run = runsStore.runs().start(Scope.of("ana", "helper"), "default", false);
        Run other = runsStore.runs().start(Scope.of("ana", "helper"), "default", false);
        Step foreign = step(other, 1);
        assertThatThrownBy(() -> runsStore.runs().finish("ana", run.id(), RunStatus.COMPLETED, "end_turn", List.of(foreign)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not of run '" + run.id() + "'");
        assertThat(runsStore.runs().get("ana", run.id()).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
        assertThat(runsStore.runs().steps("ana")).isEmpty();
    }

    @Test
    void feedbackIsSetAndClearedAndBadFeedbackChangesNothing() {
        Run run = runsStore.runs().start(Scope.of("ana", "helper"), "default", false);
        Step step = step(run, 1);
        runsStore.runs().finish("ana", run.id(), RunStatus.COMPLETED, "end_turn", List.of(step));

        Step liked = runsStore.runs().feedback("ana", step.id(), "positive", List.of("good", "short"));
        assertThat(liked.feedback()).isEqualTo("positive");
        assertThat(runsStore.runs().step("ana", step.id())).contains(liked);
        assertThatThrownBy(() -> runsStore.runs().feedback("ana", step.id(), "meh", List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive, negative or none");
        assertThatThrownBy(() -> runsStore.runs().feedback("bob", step.id(), "negative", List.of()))
                .isInstanceOf(NotFoundException.class);
        assertThat(runsStore.runs().step("ana", step.id())).contains(liked);
        assertThat(runsStore.runs().feedback("ana", step.id(), "", List.of()).feedback()).isEmpty();
    }

    @Test
    void aRunIsListedAndDeletedWithItsEventsAndSteps() {
        Run first = runsStore.runs().start(Scope.of("ana", "helper"), "default", true);
        clock.advance(Duration.ofSeconds(1));
        Run second = runsStore.runs().start(Scope.of("ana", "coach"), "default", false);
        runsStore.runs().start(Scope.of("bob", "helper"), "default", false);
        runsStore.runs().append("ana", first.id(), List.of(new RunEvent(1, "", "{}")), 100, List.of(step(first, 1)));
        assertThat(runsStore.runs().list("ana")).extracting(Run::id).containsExactly(first.id(), second.id());

        assertThatThrownBy(() -> runsStore.runs().delete("bob", first.id())).isInstanceOf(NotFoundException.class);
        assertThat(runsStore.runs().steps("ana")).hasSize(1);
        runsStore.runs().delete("ana", first.id());
        assertThat(runsStore.runs().get("ana", first.id())).isEmpty();
        assertThat(runsStore.runs().steps("ana")).isEmpty();
        assertThat(runsStore.runs().list("ana")).extracting(Run::id).containsExactly(second.id());
    }

    @Test
    void stepsArePurgedWithTheirRun() {
        Run run = runsStore.runs().start(Scope.of("ana", "helper"), "default", false);
        runsStore.runs().finish("ana", run.id(), RunStatus.COMPLETED, "end_turn", List.of(step(run, 1)));
        clock.advance(Duration.ofHours(2));
        assertThat(runsStore.runs().purge(clock.instant().minus(Duration.ofHours(1)), clock.instant())).isEqualTo(1);
        assertThat(runsStore.runs().steps("ana")).isEmpty();
    }

    @Test
    void aStepRejectsBadValues() {
        Instant t = clock.instant();
        assertThatThrownBy(() -> new Step("run-1", "ana", "helper", "run-1", "m", "", 0, 0, "{}", "{}", List.of(), "", "success",
                t, Duration.ZERO, t, "", List.of())).hasMessageContaining("starts with 'step-'");
        assertThatThrownBy(() -> new Step("step-1", "ana", "helper", "run-1", "m", "", -1, 0, "{}", "{}", List.of(), "", "success",
                t, Duration.ZERO, t, "", List.of())).hasMessageContaining("0 or more");
        assertThatThrownBy(() -> new Step("step-1", "ana", "helper", "run-1", "m", "", 0, 0, "{}", "{}", List.of(), "", "pending",
                t, Duration.ZERO, t, "", List.of())).hasMessageContaining("status");
        assertThatThrownBy(() -> new Step("step-1", "ana", "helper", "run-1", "m", "", 0, 0, "{}", "{}", List.of(), "", "success",
                t, Duration.ZERO, t.minusSeconds(1), "", List.of())).hasMessageContaining("ends after it starts");
    }
}
