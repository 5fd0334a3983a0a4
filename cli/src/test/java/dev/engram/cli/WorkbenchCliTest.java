package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The workbench tools on the command line: listed with their tiers, called directly, their state in {@code agent show}. */
class WorkbenchCliTest {
    @TempDir
    Path home;

    private Cli.Run ok(String... args) {
        return Cli.ok(home, args);
    }

    @Test
    void theWorkbenchToolsAreListedWithTheirTiers() {
        String list = ok("tools", "list").out();
        assertThat(list).containsPattern("write_todos\\s+side_effecting").containsPattern("create_goal\\s+side_effecting")
                .containsPattern("sessions_list\\s+read_only").containsPattern("sessions_send\\s+side_effecting")
                .containsPattern("trigger_hot_swap\\s+side_effecting").contains("switch_goal", "complete_goal",
                        "create_checkpoint", "record_decision", "sessions_patch")
                .doesNotContain("write_memory_dump"); // it needs a workspace
    }

    @Test
    void agentShowPrintsTheGoalsCheckpointsDecisionsAndTodosTheToolsStored() {
        ok("agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini", "--id", "helper-1");
        ok("tools", "call", "write_todos", "--args", "{\"todos\": [{\"content\": \"Draft\", \"status\": \"in_progress\"},"
                + " {\"content\": \"Send\", \"status\": \"pending\"}]}", "--agent", "helper", "--user", "ana");
        ok("tools", "call", "create_goal", "--args", "{\"title\": \"Quarterly report\"}", "--agent", "helper", "--user", "ana");
        ok("tools", "call", "create_checkpoint", "--args", "{\"progress\": \"outline done\"}", "--agent", "helper", "--user", "ana");
        ok("tools", "call", "record_decision", "--args", "{\"decision\": \"March figures\", \"rationale\": \"April is late\"}",
                "--agent", "helper", "--user", "ana");
        String bad = Cli.run(home, "tools", "call", "write_todos", "--args", "{\"todos\": [{\"content\": \"x\", \"status\": \"done\"}]}",
                "--agent", "helper", "--user", "ana").out();
        assertThat(bad).contains("a todo status is one of pending, in_progress, completed; got 'done'");

        String shown = ok("agent", "show", "helper", "--user", "ana").out();

        assertThat(shown).containsPattern("goal goal-\\S+ \\(current\\): Quarterly report")
                .contains("  checkpoint: outline done", "  decision: March figures (because April is late)",
                        "todo [in_progress] Draft", "todo [pending] Send");
        assertThat(ok("agent", "create", "other", "--user", "ana", "--model", "openai:gpt-4o-mini").out()).isNotEmpty();
        assertThat(ok("agent", "show", "other", "--user", "ana").out()).doesNotContain("goal ", "todo [");
    }
}
