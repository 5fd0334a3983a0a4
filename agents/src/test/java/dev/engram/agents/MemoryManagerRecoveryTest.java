package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ModelException;
import dev.engram.memory.Job;
import dev.engram.memory.JobLeases;
import dev.engram.memory.JobStatus;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Note;
import dev.engram.memory.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An accepted add job survives a crash: at the next start it runs again, or fails after too many attempts; never lost. */
class MemoryManagerRecoveryTest {
    @TempDir
    Path dir;

    /** A model that holds its caller until released, then fails: the process "dies" while the job runs. */
    static final class StuckModel implements ChatModel {
        final CountDownLatch called = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public String name() {
            return "stuck";
        }

        @Override
        public ChatResponse chat(ChatRequest request) {
            called.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new ModelException("the process is gone");
        }
    }

    /** Accepts a job, lets it start, then closes the store under it as a crash would; returns the job's id. */
    private String crashWhileRunning(Path file) throws InterruptedException {
        StuckModel stuck = new StuckModel();
        MemoryStore store = MemoryStore.sqlite(file);
        MemoryManager memory = MemoryManager.builder(store).model(stuck).build();
        AddJob job = memory.add(MemoryManagerTest.MOVE, MemoryScope.user("ana"));
        assertThat(stuck.called.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(job.job().status()).isEqualTo(JobStatus.RUNNING);
        store.close(); // the crash: nothing more reaches the file
        stuck.release.countDown();
        memory.close();
        return job.id();
    }

    @Test
    void aJobInterruptedByACrashRunsAgainAtTheNextStartAndStoresItsFacts() throws Exception {
        Path file = dir.resolve("memory.db");
        String id = crashWhileRunning(file);
        try (MemoryStore store = MemoryStore.sqlite(file);
                MemoryManager memory = MemoryManager.builder(store).model(MemoryManagerTest.model(
                        MemoryManagerTest.says("{\"facts\": [\"The user moved to Porto.\"]}"))).build()) {
            Job interrupted = store.jobs().get("ana", id).orElseThrow();
            assertThat(interrupted.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(interrupted.attempts()).isEqualTo(1);
            List<AddJob> resumed = memory.resumeUnfinished();
            assertThat(resumed).extracting(AddJob::id).containsExactly(id);
            AddResult result = resumed.getFirst().await(MemoryManagerTest.WAIT);
            assertThat(result.succeeded()).isTrue();
            assertThat(store.notes().list("ana", 0, 10)).extracting(Note::content).containsExactly("The user moved to Porto.");
            assertThat(store.jobs().get("ana", id).orElseThrow().attempts()).isEqualTo(2);
            assertThat(store.jobs().unfinished()).isEmpty();
        }
    }

    @Test
    void aJobInterruptedAsOftenAsItMayRunFailsAtTheNextStartSayingSo() throws Exception {
        Path file = dir.resolve("memory.db");
        String id = crashWhileRunning(file);
        try (MemoryStore store = MemoryStore.sqlite(file)) {
            store.jobs().start("ana", id); // its second attempt, interrupted too
        }
        try (MemoryStore store = MemoryStore.sqlite(file);
                MemoryManager memory = MemoryManager.builder(store).model(MemoryManagerTest.model()).build()) {
            assertThat(memory.resumeUnfinished()).isEmpty();
            Job failed = store.jobs().get("ana", id).orElseThrow();
            assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
            assertThat(failed.error()).contains("interrupted 2 times");
            assertThat(MemoryManager.result(failed).status()).isEqualTo(JobStatus.FAILED);
            assertThat(store.notes().list("ana", 0, 10)).isEmpty();
        }
    }

    @Test
    void aJobAcceptedButNeverStartedRunsAtTheNextStart() {
        Path file = dir.resolve("memory.db");
        String id;
        try (MemoryStore store = MemoryStore.sqlite(file)) {
            // what add stores before it returns, as a process that stopped before its worker ran it leaves it
            id = store.jobs().create("ana", MemoryManager.KIND, "{\"messages\": [{\"role\": \"user\", \"content\": "
                    + "\"I like tea\"}], \"raw\": true, \"target\": \"NOTE\", \"similarity\": 0.85}").id();
        }
        try (MemoryStore store = MemoryStore.sqlite(file); MemoryManager memory = MemoryManager.builder(store).build()) {
            List<AddJob> resumed = memory.resumeUnfinished();
            assertThat(resumed).extracting(AddJob::id).containsExactly(id);
            assertThat(resumed.getFirst().await(MemoryManagerTest.WAIT).stored()).hasSize(1);
        }
    }

    private static final String RAW_INPUT = "{\"messages\": [{\"role\": \"user\", \"content\": \"I like tea\"}], "
            + "\"raw\": true, \"target\": \"NOTE\", \"similarity\": 0.85}";

    @Test
    void jobsWhoseOwnerIsGoneAreTakenUpAndAJobStillAliveIsLeftToItsOwner() {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-25T08:00:00Z"));
        try (MemoryStore store = MemoryStore.inMemory(clock)) {
            // rows another process left: accepted and never run, running, and interrupted as often as a job may run
            String accepted = store.jobs().create("ana", MemoryManager.KIND, RAW_INPUT).id();
            clock.advance(Duration.ofSeconds(1));
            String running = store.jobs().start("ben", store.jobs().create("ben", MemoryManager.KIND, RAW_INPUT).id()).id();
            clock.advance(Duration.ofSeconds(1));
            String tired = store.jobs().create("ana", MemoryManager.KIND, RAW_INPUT).id();
            store.jobs().start("ana", tired);
            store.jobs().start("ana", tired);
            String other = store.jobs().create("ana", "another_kind", "{}").id();
            clock.advance(MemoryManager.LEASE.plusSeconds(1));
            // a job a live process touched a moment ago
            String alive = store.jobs().create("ana", MemoryManager.KIND, RAW_INPUT).id();
            clock.advance(MemoryManager.LEASE.minusSeconds(1));

            try (MemoryManager memory = MemoryManager.builder(store).build()) {
                List<AddJob> taken = memory.resumeAbandoned();
                assertThat(taken).extracting(AddJob::id).containsExactly(accepted, running, tired);
                assertThat(taken.get(0).await(MemoryManagerTest.WAIT).stored()).hasSize(1);
                assertThat(taken.get(1).await(MemoryManagerTest.WAIT).stored()).hasSize(1);
                AddResult failed = taken.get(2).await(MemoryManagerTest.WAIT);
                assertThat(failed.status()).isEqualTo(JobStatus.FAILED);
                assertThat(failed.error()).isEqualTo("the job was interrupted 2 times (the process stopped while it ran); "
                        + "add the messages again");
                assertThat(store.jobs().get("ana", alive).orElseThrow().status()).as("its owner may be alive")
                        .isEqualTo(JobStatus.CREATED);
                assertThat(store.jobs().get("ana", other).orElseThrow().status()).as("not a memory job")
                        .isEqualTo(JobStatus.CREATED);
                assertThat(memory.resumeAbandoned()).as("nothing is taken up twice").isEmpty();
            }
        }
    }

    @Test
    void aManagerKeepsTheJobsItHoldsAliveAndNeverTakesThemUpAsAbandoned() throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-25T08:00:00Z"));
        try (MemoryStore store = MemoryStore.inMemory(clock)) {
            Job job = store.jobs().create("ana", MemoryManager.KIND, RAW_INPUT);
            try (JobLeases leases = JobLeases.on(store, Duration.ofMillis(20), MemoryManager.LEASE)) {
                leases.hold(job);
                clock.advance(MemoryManager.LEASE.multipliedBy(3));
                assertThat(leases.abandoned(store.jobs().get("ana", job.id()).orElseThrow())).as("held here").isFalse();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!store.jobs().get("ana", job.id()).orElseThrow().updatedAt().equals(clock.instant())
                        && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertThat(store.jobs().get("ana", job.id()).orElseThrow().updatedAt()).as("touched by the heartbeat")
                        .isEqualTo(clock.instant());
                leases.release(job.id());
                Job released = store.jobs().get("ana", job.id()).orElseThrow();
                assertThat(leases.abandoned(released)).as("touched just now").isFalse();
                clock.advance(MemoryManager.LEASE.plusSeconds(1));
                assertThat(leases.abandoned(store.jobs().get("ana", job.id()).orElseThrow())).isTrue();
            }
        }
    }

    @Test
    void aManagerThatSweepsTakesUpAJobWhoseOwnerStoppedWhileItRuns() throws Exception {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-25T08:00:00Z"));
        try (MemoryStore store = MemoryStore.inMemory(clock); MemoryManager memory = MemoryManager.builder(store).build()) {
            assertThatThrownBy(() -> memory.resumeAbandonedEvery(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the period must be positive, got PT0S");
            memory.resumeAbandonedEvery(Duration.ofMillis(20));
            String left = store.jobs().start("ana", store.jobs().create("ana", MemoryManager.KIND, RAW_INPUT).id()).id();
            Thread.sleep(100);
            assertThat(store.jobs().get("ana", left).orElseThrow().status()).as("its owner may be alive")
                    .isEqualTo(JobStatus.RUNNING);
            clock.advance(MemoryManager.LEASE.plusSeconds(1));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (store.jobs().get("ana", left).orElseThrow().status().isActive() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(store.jobs().get("ana", left).orElseThrow().status()).isEqualTo(JobStatus.COMPLETED);
            assertThat(store.notes().list("ana", 0, 10)).extracting(Note::content).containsExactly("I like tea");
        }
    }
}
