package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's run command: offline, no configuration, and the agent remembers after a reopen. */
class DemoCommandTest {
    @TempDir
    Path home;

    @Test
    void theDemoRunsOfflineAndTheAgentRemembersAfterTheReopen() {
        Cli.Run run = Cli.run(home, "demo");

        assertThat(run.err()).doesNotContain("engram:");
        assertThat(run.exit()).isZero();
        String out = run.out();
        int restart = out.indexOf("--- restart");
        assertThat(restart).isPositive();
        String before = out.substring(0, restart);
        String after = out.substring(restart);
        // Before: the transcript, with the failed call expanded and the successful ones collapsed.
        assertThat(before).contains("you > Hi! I'm Maya.")
                .contains("  x block {\"operation\":\"append\",\"label\":\"user\"")
                .contains("There is no block labelled 'user'. Existing blocks: human, persona.")
                .contains("  - block {\"operation\":\"append\",\"label\":\"human\",\"text\":\"Allergic to peanuts\"")
                .contains("  - recall {\"operation\":\"insert\",\"label\":\"octopus-project\"")
                .contains("  - memory_save ")
                .contains("assistant > You're tracking octopus migration off Cascais");
        // After the reopen: the compiled prompt holds the learned facts, and search finds the memories.
        assertThat(after).contains("Name: Maya, marine biologist in Lisbon").contains("Allergic to peanuts")
                .containsPattern("\\[archival [0-9.]+\\] Maya's research: tracking octopus migration.*"
                        + "\\(bm25 #[12] [0-9.]+, vector #[12] [0-9.]+\\)")
                .containsPattern("\\[notes [0-9.]+\\] Maya's field report on octopus migration is due on March 3\\. "
                        + "\\(bm25 #[12] [0-9.]+, vector #[12] [0-9.]+\\)")
                .contains("a relevant hit that ranks last in both lists scores 0")
                .contains("assistant > Of course, Maya!");
        assertThat(home.resolve("demo/memory.db")).exists();
    }

    @Test
    void theDemoCanRunAgainOverItsOwnData() {
        assertThat(Cli.run(home, "demo").exit()).isZero();
        Cli.Run again = Cli.run(home, "demo");
        assertThat(again.exit()).isZero();
        assertThat(again.out()).contains("assistant > Of course, Maya!");
    }
}
