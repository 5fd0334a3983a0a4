package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class JobLeasesTest {

    @Test
    void aJobIsAbandonedOnlyWhenNotHeldHereAndUntouchedForLongerThanTheLease() {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-26T08:00:00Z"));
        try (MemoryStore store = MemoryStore.inMemory(clock); JobLeases leases = JobLeases.on(store)) {
            Job job = store.jobs().create("ana", "kind", "{}");
            clock.advance(JobLeases.LEASE);
            assertThat(leases.abandoned(store.jobs().get("ana", job.id()).orElseThrow())).isFalse();
            clock.advance(Duration.ofSeconds(1));
            Job stale = store.jobs().get("ana", job.id()).orElseThrow();
            assertThat(leases.abandoned(stale)).isTrue();

            leases.hold(stale);
            assertThat(leases.holds(job.id())).isTrue();
            assertThat(leases.abandoned(stale)).as("a job held here is never abandoned").isFalse();
            leases.beat();
            assertThat(store.jobs().get("ana", job.id()).orElseThrow().updatedAt()).isEqualTo(clock.instant());
            leases.release(job.id());
            assertThat(leases.abandoned(store.jobs().get("ana", job.id()).orElseThrow())).as("just touched").isFalse();
        }
    }

    @Test
    void aLeaseNotLongerThanItsHeartbeatOrANonPositiveDurationIsRefused() {
        try (MemoryStore store = MemoryStore.inMemory()) {
            assertThatThrownBy(() -> JobLeases.on(store, Duration.ofSeconds(10), Duration.ofSeconds(10)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be longer than the heartbeat");
            assertThatThrownBy(() -> JobLeases.on(store, Duration.ZERO, Duration.ofSeconds(10)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heartbeat must be positive");
            assertThatThrownBy(() -> JobLeases.on(store, Duration.ofSeconds(1), Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lease must be positive");
        }
    }
}
