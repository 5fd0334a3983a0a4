package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.ScheduleLimits;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The scheduler's per-user budget forgets users with no firing in the last day, and only them. */
class FiringBudgetTest {
    private static final Instant T0 = Instant.parse("2026-11-26T08:00:00Z");

    @Test
    void usersWithNoFiringInTheLastDayAreForgottenAndTheOthersKeepTheirBudget() {
        ScheduleLimits limits = new ScheduleLimits(Duration.ofMinutes(1), Duration.ofDays(365), 1, 10);
        FiringBudget budget = new FiringBudget(limits);
        for (int u = 0; u < FiringBudget.SWEEP_AT - 1; u++) {
            assertThat(budget.take("old" + u, T0)).isEmpty();
        }
        Instant later = T0.plus(Duration.ofHours(25));
        assertThat(budget.take("recent", later)).isEmpty();
        assertThat(budget.users()).isEqualTo(FiringBudget.SWEEP_AT);

        // the next firing sweeps: the users whose only firing was 25 hours ago go, "recent" stays with its firing
        assertThat(budget.take("newcomer", later)).isEmpty();

        assertThat(budget.users()).isEqualTo(2);
        assertThat(budget.take("recent", later.plusSeconds(60))).get()
                .satisfies(r -> assertThat(r.reason()).contains("user 'recent' had 1 scheduled turns in the last hour"));
    }
}
