package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolDefinition;
import dev.engram.memory.MessageRole;
import dev.engram.tools.ShellSessions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The workbench tools through the scripted model: {@code glob}, and {@code shell_exec} in a persistent session. */
class WorkbenchToolsTest {
    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void theModelFindsFilesWithGlobAndTheNextPromptShowsThemNewestFirst() throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.createDirectories(ws.resolve("docs"));
        Files.writeString(ws.resolve("docs/old.md"), "old");
        Files.setLastModifiedTime(ws.resolve("docs/old.md"), FileTime.from(Instant.parse("2025-01-01T00:00:00Z")));
        Files.writeString(ws.resolve("docs/new.md"), "new");
        Files.writeString(ws.resolve(".gitignore"), "secret.md\n");
        Files.writeString(ws.resolve("docs/secret.md"), "ignored");
        String turns = """
                {"turns": [
                  {"tool_calls": [{"name": "glob", "arguments": {"pattern": "**/*.md", "request_heartbeat": true}}]},
                  {"text": "Two documents.", "expect_in_prompt": ["2 files match", "docs/new.md", "docs/old.md"]}
                ]}""";
        fx = new AgentFixture(dir).open("script:coder", script(turns));
        Agent coder = fx.runtime.create(AgentDefinition.builder("ana").id("coder").model("script:coder")
                .toolAccess(new ToolAccess(Optional.of(ws), List.of(), false)).build());
        assertThat(coder.compilePrompt().tools()).extracting(ToolDefinition::name).contains("glob");
        assertThat(coder.send("Which documents are there?").reply()).contains("Two documents.");
        assertThat(fx.messages(coder.scope())).filteredOn(m -> m.role() == MessageRole.TOOL).singleElement()
                .satisfies(m -> assertThat(m.content()).contains("docs/new.md\ndocs/old.md").doesNotContain("secret.md"));
    }

    @Test
    void anAgentsShellKeepsItsDirectoryBetweenCallsAndClosingTheRuntimeLeavesNoProcess() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")) || Files.isExecutable(Path.of("/bin/bwrap")),
                "skipped: bwrap is not installed (apt-get install bubblewrap util-linux)");
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Files.createDirectories(ws.resolve("sub"));
        // A root JVM's sandbox is uid 65534: it must reach the workspace, as an operator would arrange.
        for (Path p : List.of(dir, ws, ws.resolve("sub"))) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
            if ("root".equals(System.getProperty("user.name")) && !p.equals(dir)) {
                Files.setAttribute(p, "unix:uid", 65534); // the sandbox's user writes the workspace, as chown -R would
                Files.setAttribute(p, "unix:gid", 65534);
            }
        }
        String turns = """
                {"turns": [
                  {"tool_calls": [{"name": "shell_exec", "arguments": {"command": "cd sub", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "shell_exec", "arguments": {"command": "pwd", "request_heartbeat": true}}]},
                  {"text": "In sub.", "expect_in_prompt": ["WS/sub"]}
                ]}""".replace("WS", ws.toString());
        ShellSessions sessions = ShellSessions.create(Duration.ofMinutes(5), 2);
        fx = new AgentFixture(dir).open(b -> b.model("script:coder", script(turns)).shellSessions(sessions));
        Agent coder = fx.runtime.create(AgentDefinition.builder("ana").id("coder").model("script:coder")
                .approvalMode(ApprovalMode.YOLO).toolAccess(new ToolAccess(Optional.of(ws), List.of("ls"), false)).build());
        assertThat(coder.send("Where are you?").reply()).contains("In sub.");
        assertThat(sessions.size()).isEqualTo(1);
        List<ProcessHandle> sandboxes = ProcessHandle.current().descendants()
                .filter(p -> p.info().command().orElse("").endsWith("bwrap") || p.info().command().orElse("").endsWith("bash"))
                .toList();
        assertThat(sandboxes).isNotEmpty();

        fx.runtime.close();
        assertThat(sessions.size()).isZero();
        for (ProcessHandle p : sandboxes) {
            p.onExit().get(10, TimeUnit.SECONDS);
            assertThat(p.isAlive()).as("pid " + p.pid()).isFalse();
        }
    }
}
