package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --code}: run_code and execute_code are offered only when asked for, and a program calls the agent's tools. */
class CodeFlagTest {
    @TempDir
    Path home;

    private Cli.Run ok(String... args) {
        return Cli.ok(home, args);
    }

    @Test
    void theCodeToolsAreListedWithTheirTiersOnlyWithCode() {
        assertThat(ok("tools", "list").out()).doesNotContain("run_code", "execute_code");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "skipped: bwrap is not installed (apt-get install bubblewrap util-linux)");
        assertThat(ok("tools", "list", "--code").out()).containsPattern("run_code\\s+side_effecting")
                .containsPattern("execute_code\\s+side_effecting");
    }

    @Test
    void anAgentCreatedWithCodeRunsAProgramThatCallsItsToolsAndStillLoadsWithoutCode() {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "skipped: bwrap is not installed (apt-get install bubblewrap util-linux)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "skipped: python3 is not installed (apt-get install python3)");
        ok("agent", "create", "coder", "--user", "ana", "--model", "openai:gpt-4o-mini", "--code");
        assertThat(ok("agent", "show", "coder", "--user", "ana").out()).contains("\"execute_code\"");

        String out = ok("tools", "call", "execute_code", "--code", "--agent", "coder", "--user", "ana", "--args",
                "{\"language\": \"python\", \"code\": \"r = memory_save(content='Ana codes in Python')\\nprint('saved', r['note_id'][:5])\"}")
                .out();

        assertThat(out).contains("\"status\" : \"success\"").contains("saved note-");
        assertThat(ok("notes", "list", "--user", "ana").out()).contains("Ana codes in Python");
        assertThat(ok("agent", "show", "coder", "--user", "ana").out()).contains("\"execute_code\"");
        assertThat(Cli.run(home, "tools", "call", "execute_code", "--agent", "coder", "--user", "ana", "--args",
                "{\"language\": \"python\", \"code\": \"print(1)\"}").out()).contains("Unknown tool 'execute_code'");
    }
}
