package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Background jobs on one backend: stored with their input when accepted, each its user's, ended once, and the active
 * ones found again at a start. {@link MemoryStoreConformance} runs it as a nested class.
 */
public abstract class JobConformance {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-11-25T08:00:00Z"));
    private MemoryStore jobsStore;

    /** The open store under test. */
    protected abstract MemoryStore store();

    @BeforeEach
    void clockedStore() {
        jobsStore = MemoryStore.over(store().backend(), clock);
    }

    @Test
    void aJobIsStoredWithItsInputStartedProgressedAndCompletedAsItsUsers() {
        Job job = jobsStore.jobs().create(Scope.of("ana", "helper"), "memory_add", "{\"messages\":[]}");
        assertThat(job.id()).startsWith(Job.ID_PREFIX);
        assertThat(job.status()).isEqualTo(JobStatus.CREATED);
        assertThat(job.agentId()).contains("helper");
        assertThat(job.result()).isEqualTo("{}");
        assertThat(jobsStore.jobs().get("ana", job.id())).contains(job);
        assertThat(jobsStore.jobs().get("bob", job.id())).isEmpty();

        clock.advance(Duration.ofSeconds(1));
        Job running = jobsStore.jobs().start("ana", job.id());
        assertThat(running.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(running.attempts()).isEqualTo(1);
        Job halfway = jobsStore.jobs().progress("ana", job.id(), "{\"done\":1}");
        assertThat(halfway.result()).isEqualTo("{\"done\":1}");
        clock.advance(Duration.ofSeconds(2));
        Job done = jobsStore.jobs().finish("ana", job.id(), JobStatus.COMPLETED, "{\"done\":2}", "");
        assertThat(done.completedAt()).contains(clock.instant());
        assertThat(done.createdAt()).isEqualTo(job.createdAt());
        assertThat(jobsStore.jobs().get("ana", job.id())).contains(done);
        // an ended job stays as it ended, and cannot start again
        assertThat(jobsStore.jobs().finish("ana", job.id(), JobStatus.FAILED, "{}", "late")).isEqualTo(done);
        assertThatThrownBy(() -> jobsStore.jobs().start("ana", job.id())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has ended");
    }

    @Test
    void aUsersOwnJobHasNoAgentAndFailsWithItsError() {
        Job job = jobsStore.jobs().create("ana", "memory_add", "{}");
        assertThat(job.agentId()).isEmpty();
        Job failed = jobsStore.jobs().finish("ana", job.id(), JobStatus.FAILED, "{}", "the model's answer did not parse");
        assertThat(jobsStore.jobs().get("ana", job.id()).orElseThrow().error()).isEqualTo("the model's answer did not parse");
        assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
    }

    @Test
    void activeJobsOfEveryUserAreFoundAgainOldestFirstAndListsAreNewestFirst() {
        Job first = jobsStore.jobs().create("ana", "memory_add", "{}");
        clock.advance(Duration.ofSeconds(1));
        Job second = jobsStore.jobs().create(Scope.of("bob", "coach"), "memory_add", "{}");
        clock.advance(Duration.ofSeconds(1));
        Job third = jobsStore.jobs().create("ana", "memory_add", "{}");
        jobsStore.jobs().start("bob", second.id());
        jobsStore.jobs().finish("ana", third.id(), JobStatus.COMPLETED, "{}", "");
        assertThat(jobsStore.jobs().unfinished()).extracting(Job::id).containsExactly(first.id(), second.id());
        assertThat(jobsStore.jobs().list("ana", 10)).extracting(Job::id).containsExactly(third.id(), first.id());
        assertThat(jobsStore.jobs().list("ana", 1)).extracting(Job::id).containsExactly(third.id());
        assertThat(jobsStore.jobs().list("carol", 10)).isEmpty();
    }

    @Test
    void aTouchMarksAnActiveJobAliveAndChangesNothingElse() {
        Job job = jobsStore.jobs().create("ana", "memory_add", "{\"messages\":[]}");
        Job running = jobsStore.jobs().progress("ana", jobsStore.jobs().start("ana", job.id()).id(), "{\"done\":1}");
        clock.advance(Duration.ofMinutes(5));
        Job touched = jobsStore.jobs().touch("ana", job.id());
        assertThat(touched.updatedAt()).isEqualTo(clock.instant());
        assertThat(touched).usingRecursiveComparison().ignoringFields("updatedAt").isEqualTo(running);
        assertThat(jobsStore.jobs().get("ana", job.id())).contains(touched);

        assertThatThrownBy(() -> jobsStore.jobs().touch("bob", job.id())).isInstanceOf(NotFoundException.class);
        Job done = jobsStore.jobs().finish("ana", job.id(), JobStatus.COMPLETED, "{}", "");
        clock.advance(Duration.ofMinutes(1));
        assertThatThrownBy(() -> jobsStore.jobs().touch("ana", job.id())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has ended");
        assertThat(jobsStore.jobs().get("ana", job.id())).contains(done);
    }

    @Test
    void badJobWritesAreRefusedAndChangeNothing() {
        Job job = jobsStore.jobs().create("ana", "memory_add", "{}");
        assertThatThrownBy(() -> jobsStore.jobs().create("ana", " ", "{}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> jobsStore.jobs().create("ana", "memory_add", "x".repeat(JobStore.MAX_TEXT + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the most is");
        assertThatThrownBy(() -> jobsStore.jobs().finish("ana", job.id(), JobStatus.FAILED, "{}", " "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("error");
        assertThatThrownBy(() -> jobsStore.jobs().finish("ana", job.id(), JobStatus.RUNNING, "{}", ""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> jobsStore.jobs().start("bob", job.id())).isInstanceOf(NotFoundException.class);
        assertThat(jobsStore.jobs().list("ana", 10)).containsExactly(job);
        assertThat(jobsStore.jobs().list("bob", 10)).isEmpty();
        assertThatThrownBy(() -> jobsStore.jobs().list("ana", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(List.of(jobsStore.jobs().unfinished().getFirst())).containsExactly(job);
    }

    @Test
    void aCancelledJobKeepsItsResultTakesNoMoreProgressAndADeletedJobIsGone() {
        Job job = jobsStore.jobs().create(Scope.of("ana", "helper"), "memory_add", "{}");
        jobsStore.jobs().start("ana", job.id());
        jobsStore.jobs().progress("ana", job.id(), "{\"done\":1}");
        assertThatThrownBy(() -> jobsStore.jobs().cancel("bob", job.id())).isInstanceOf(NotFoundException.class);
        Job cancelled = jobsStore.jobs().cancel("ana", job.id());
        assertThat(cancelled.status()).isEqualTo(JobStatus.CANCELLED);
        assertThat(cancelled.result()).isEqualTo("{\"done\":1}");
        assertThat(cancelled.completedAt()).isPresent();
        assertThatThrownBy(() -> jobsStore.jobs().progress("ana", job.id(), "{\"done\":2}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has ended");
        assertThatThrownBy(() -> jobsStore.jobs().cancel("ana", job.id())).isInstanceOf(IllegalArgumentException.class);
        assertThat(jobsStore.jobs().get("ana", job.id())).contains(cancelled);
        assertThat(jobsStore.jobs().unfinished()).extracting(Job::id).doesNotContain(job.id());

        assertThatThrownBy(() -> jobsStore.jobs().delete("bob", job.id())).isInstanceOf(NotFoundException.class);
        assertThat(jobsStore.jobs().get("ana", job.id())).isPresent();
        jobsStore.jobs().delete("ana", job.id());
        assertThat(jobsStore.jobs().get("ana", job.id())).isEmpty();
    }
}
