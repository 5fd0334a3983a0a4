package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.agents.AgentRuntime;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.ScheduleLimits;
import dev.engram.server.EngramServer;
import dev.engram.memory.UserQuotas;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code engram serve}'s quota, waiting-approval and schedule flags: their defaults are the library's, and they parse. */
class LimitOptionsTest {
    private static ServeCommand parse(String... args) {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).parseArgs(args);
        return serve;
    }

    @Test
    void theDefaultsAreTheServersAndTheSchedulersDefaults() {
        LimitOptions limits = parse().limits;
        assertThat(limits.quotas()).isEqualTo(UserQuotas.defaults());
        assertThat(limits.scheduleLimits()).isEqualTo(ScheduleLimits.defaults());
        assertThat(limits.waitingPerUser).isEqualTo(EngramServer.DEFAULT_MAX_WAITING_PER_USER);
        assertThat(limits.waitingPerServer).isEqualTo(EngramServer.DEFAULT_MAX_WAITING_PER_SERVER);
        assertThat(limits.describe()).isEqualTo("per user 1000 agents, 10000 blocks, 1000000 archival entries, 100000 notes, "
                + "1073741824 bytes, 100 waiting approvals (1000 on the server); schedules 5 min apart, 60 turns an hour, 500 a day");
    }

    @Test
    void theFlagsSetEveryLimit() {
        LimitOptions limits = parse("--max-agents-per-user", "5", "--max-blocks-per-user", "50",
                "--max-archival-entries-per-user", "500", "--max-notes-per-user", "7", "--max-stored-bytes-per-user", "1048576",
                "--max-waiting-approvals-per-user", "3", "--max-waiting-approvals", "30", "--min-schedule-interval", "1h",
                "--max-scheduled-turns-per-hour", "4", "--max-scheduled-turns-per-day", "20").limits;
        assertThat(limits.quotas()).isEqualTo(new UserQuotas(5, 50, 500, 7, 1_048_576));
        assertThat(limits.scheduleLimits()).isEqualTo(ScheduleLimits.defaults().withMinInterval(Duration.ofHours(1))
                .withFirings(4, 20));
        assertThat(limits.waitingPerUser).isEqualTo(3);
        assertThat(limits.waitingPerServer).isEqualTo(30);
        assertThatThrownBy(() -> parse("--min-schedule-interval", "5"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("'5' is not a duration: give a number and a unit, s, m, h or d (e.g. 5m, 1h)");
        assertThatThrownBy(() -> parse("--max-agents-per-user", "0").limits.quotas())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("every quota must be at least 1");
    }

    @Test
    void theLoadedAgentsFlagDefaultsToTheRuntimesBoundAndABoundBelowOneIsRefused() {
        assertThat(parse().limits.maxLoadedAgents).isEqualTo(AgentRuntime.Builder.DEFAULT_MAX_LOADED_AGENTS);
        assertThat(parse("--max-loaded-agents", "50").limits.maxLoadedAgents).isEqualTo(50);
        try (MemoryStore store = MemoryStore.inMemory()) {
            AgentRuntime.Builder b = AgentRuntime.builder(store, MemorySearch.luceneInMemory(store,
                    Embedder.unavailable("none", 4, "not needed here")));
            assertThatThrownBy(() -> parse("--max-loaded-agents", "0").limits.configure(b))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("the most agents kept loaded must be at least 1, got 0");
        }
    }

    @Test
    void theImageFlagsDefaultToTheServersLimitsAndParse() {
        ServeCommand defaults = parse();
        assertThat(defaults.maxImageBytes).isEqualTo(EngramServer.DEFAULT_MAX_IMAGE_BYTES);
        assertThat(defaults.maxImagesPerMessage).isEqualTo(EngramServer.DEFAULT_MAX_IMAGES_PER_MESSAGE);
        ServeCommand set = parse("--max-image-bytes", "1048576", "--max-images-per-message", "2");
        assertThat(set.maxImageBytes).isEqualTo(1_048_576);
        assertThat(set.maxImagesPerMessage).isEqualTo(2);
    }
}
