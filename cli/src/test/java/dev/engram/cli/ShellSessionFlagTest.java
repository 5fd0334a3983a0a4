package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --shell-session}: shell_exec in a persistent sandboxed session, listed as such, and nothing left at exit. */
class ShellSessionFlagTest {
    @TempDir
    Path home;

    @TempDir
    Path ws;

    @Test
    void theFlagIsDocumentedAndToolsListShowsGlobAndTheSessionShellWithTheirTiers() throws Exception {
        assertThat(Cli.ok(home, "--help").out()).contains("--shell-session").contains("persistent shell");
        assertThat(Cli.ok(home, "tools", "list", "--workspace", ws.toString()).out())
                .containsPattern("glob\\s+read_only\\s+Find files of the workspace by path pattern \\(such as \\*\\*/\\*.java, src/\\*\\*/Test\\*.java "
                        + "or docs/\\*.md\\), skipping what .gitignore ignores.\\n");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "skipped: bwrap is not installed (apt-get install bubblewrap)");
        assertThat(Cli.ok(home, "--shell-session", "tools", "list", "--workspace", ws.toString(), "--shell", "ls").out())
                .containsPattern("shell_exec\\s+privileged\\s+Run a command line in this conversation's persistent shell")
                .containsPattern("glob\\s+read_only");
    }

    @Test
    void aCallInASessionRunsInTheSandboxAndLeavesNoProcessWhenEngramEnds() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "skipped: bwrap is not installed (apt-get install bubblewrap)");
        Files.createDirectories(ws.resolve("sub"));
        for (Path p : List.of(ws, ws.resolve("sub"))) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
            if ("root".equals(System.getProperty("user.name")) && !p.equals(home)) {
                Files.setAttribute(p, "unix:uid", 65534); // the sandbox's user writes the workspace, as chown -R would
                Files.setAttribute(p, "unix:gid", 65534);
            }
        }
        Cli.ok(home, "agent", "create", "coder", "--user", "ana", "--model", "openai:gpt-4o-mini", "--workspace", ws.toString(),
                "--shell", "ls");
        String out = Cli.ok(home, "--shell-session", "tools", "call", "shell_exec", "--args",
                "{\"command\": \"cd sub && pwd && export X=1 && echo [$X]\"}", "--agent", "coder", "--user", "ana",
                "--workspace", ws.toString(), "--shell", "ls").out();
        assertThat(out).contains("\"status\" : \"success\"").contains("exit code 0\\n" + ws.resolve("sub") + "\\n[1]");
        List<ProcessHandle> left = ProcessHandle.current().descendants()
                .filter(p -> p.info().command().orElse("").endsWith("bwrap")).toList();
        for (ProcessHandle p : left) {
            p.onExit().get(10, TimeUnit.SECONDS);
        }
        assertThat(left).allSatisfy(p -> assertThat(p.isAlive()).isFalse());
    }
}
