package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --unsafe-host-shell} is the only way to an unsandboxed shell, says what it gives up, and never weakens a
 * machine where bubblewrap is installed: there commands still run in the sandbox (as uid 65534 for a root JVM).
 */
class UnsafeHostShellFlagTest {
    @TempDir
    Path home;

    @TempDir
    Path ws;

    @Test
    void theFlagIsDocumentedWithWhatItGivesUp() {
        assertThat(Cli.ok(home, "--help").out()).contains("--unsafe-host-shell").contains("UNSANDBOXED");
    }

    @Test
    void whereBubblewrapIsInstalledTheFlagStillRunsCommandsInTheSandbox() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "skipped: bwrap is not installed (apt-get install bubblewrap)");
        if ("root".equals(System.getProperty("user.name"))) {
            // A root JVM's sandbox is uid 65534 on the host: hand it the workspace, as an operator would (chown -R).
            Files.setAttribute(ws, "unix:uid", 65534);
            Files.setAttribute(ws, "unix:gid", 65534);
        }
        Cli.ok(home, "agent", "create", "coder", "--user", "ana", "--model", "openai:gpt-4o-mini", "--workspace", ws.toString(),
                "--shell", "id");
        for (boolean flag : new boolean[] {false, true}) {
            String[] call = {"tools", "call", "shell_exec", "--args", "{\"command\": \"id -u\"}", "--agent", "coder", "--user",
                "ana", "--workspace", ws.toString(), "--shell", "id"};
            String out = Cli.ok(home, flag ? prepend("--unsafe-host-shell", call) : call).out();
            assertThat(out).contains("\"status\" : \"success\"");
            if ("root".equals(System.getProperty("user.name"))) {
                assertThat(out).as("the sandbox's nobody, not the JVM's root").contains("exit code 0\\n65534");
            }
        }
    }

    private static String[] prepend(String first, String[] rest) {
        String[] out = new String[rest.length + 1];
        out[0] = first;
        System.arraycopy(rest, 0, out, 1, rest.length);
        return out;
    }
}
