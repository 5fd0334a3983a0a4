package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

class ShellToolTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path root;

    private Workspace workspace;

    @BeforeEach
    void setUp() throws Exception {
        workspace = Workspace.of(root);
        Files.writeString(root.resolve("a.txt"), "alpha\n");
        Files.createDirectories(root.resolve("sub"));
    }

    private ToolResult run(ShellOptions options, String command, String... extra) {
        ToolRegistry registry = ToolRegistry.create().register(BuiltinTools.shell(workspace, options));
        StringBuilder args = new StringBuilder("{\"command\":" + JSON.writeValueAsString(command));
        for (int i = 0; i < extra.length; i += 2) {
            args.append(",\"").append(extra[i]).append("\":").append(extra[i + 1]);
        }
        return ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build()
                .execute(ToolCall.of("shell_exec", args.append('}').toString()), ToolContext.empty());
    }

    @Test
    void theDisabledBackendRefusesEveryCall() {
        ToolResult r = run(ShellOptions.disabled(), "ls");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).isEqualTo("The shell is disabled for this agent; use the file tools instead.");
    }

    @Test
    void anAllowedCommandRunsInTheWorkspaceWithoutAShell() {
        ToolResult r = run(ShellOptions.unsandboxedHost("ls", "echo"), "ls -1");
        assertThat(r.content()).isEqualTo("exit code 0\na.txt\nsub\n");
        assertThat(run(ShellOptions.unsandboxedHost("echo"), "echo 'one   two' \"three $HOME\" four\\ five").content())
                .isEqualTo("exit code 0\none   two three $HOME four five\n");
        assertThat(run(ShellOptions.unsandboxedHost("ls"), "ls", "cwd", "\"sub\"").content()).isEqualTo("exit code 0\n");
        assertThat(run(ShellOptions.unsandboxedHost("ls"), "ls", "cwd", "\"../..\"").content()).contains("outside the workspace");
    }

    @ParameterizedTest
    @ValueSource(strings = {"echo hi; rm -rf /", "echo hi && touch pwned", "echo hi || touch pwned", "echo hi | tee pwned",
            "echo hi > pwned", "echo hi < /etc/passwd", "echo $(touch pwned)", "echo `touch pwned`", "echo ${PATH}",
            "echo hi\ntouch pwned", "echo 'unclosed"})
    void injectionAttemptsAreRejectedBeforeAnythingRuns(String command) throws Exception {
        ToolResult r = run(ShellOptions.unsandboxedHost("echo", "ls"), command);
        assertThat(r.status()).as(command).isEqualTo(ToolStatus.TOOL_ERROR);
        try (var files = Files.list(root)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("a.txt", "sub");
        }
    }

    @Test
    void commandsOffTheAllowListAreRefused() {
        assertThat(run(ShellOptions.unsandboxedHost("ls"), "rm a.txt").content()).isEqualTo("'rm' is not an allowed command. Allowed: ls.");
        assertThat(run(ShellOptions.unsandboxedHost("ls"), "/bin/ls").content()).startsWith("'/bin/ls' is not an allowed command");
        assertThat(root.resolve("a.txt")).exists();
    }

    @Test
    void theEnvironmentIsScrubbedAndHomeIsPrivate() {
        String env = run(ShellOptions.unsandboxedHost("env"), "env").content();
        assertThat(env).contains("PATH=").doesNotContain("HOME=" + workspace.root());
        String home = env.lines().filter(l -> l.startsWith("HOME=")).findFirst().orElseThrow().substring(5);
        assertThat(Path.of(home)).as("HOME is outside the workspace, so no dot-file there configures a program")
                .isAbsolute().satisfies(h -> assertThat(h.startsWith(workspace.root())).isFalse()).doesNotExist();
        assertThat(env.lines().filter(l -> l.contains("=")).map(l -> l.substring(0, l.indexOf('='))).toList())
                .allMatch(k -> List.of("PATH", "LANG", "LC_ALL", "TERM", "TZ", "HOME").contains(k)
                        || HostCommandPolicy.GIT_ENVIRONMENT.containsKey(k));
        assertThat(env).contains("GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null");
    }

    @Test
    void aTimeoutKillsTheWholeProcessTree() throws Exception {
        ShellOptions options = ShellOptions.unsandboxedHost().withAnyCommand().withShellSyntax()
                .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(5));
        long start = System.nanoTime();
        ToolResult r = run(options, "sleep 30 & echo $! > child.pid; sleep 30");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(r.content()).startsWith("Timed out after 1 s; the command and its child processes were killed.");
        long child = Long.parseLong(Files.readString(root.resolve("child.pid")).strip());
        Thread.sleep(300);
        assertThat(running(child)).as("background child killed").isFalse();
    }

    /**
     * Whether a process still runs. A killed child whose parent died may stay a zombie until init reaps
     * it (containers often have no reaping init), and {@code ProcessHandle.isAlive} counts zombies.
     */
    private static boolean running(long pid) throws Exception {
        Path status = Path.of("/proc/" + pid + "/status");
        if (!Files.exists(status)) {
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
        return Files.readAllLines(status).stream().filter(l -> l.startsWith("State:"))
                .noneMatch(l -> l.contains("Z (zombie)") || l.contains("X (dead)"));
    }

    @Test
    void longOutputKeepsItsEnd() {
        ShellOptions options = ShellOptions.unsandboxedHost("seq");
        ToolResult r = run(options, "seq 1 100000");
        assertThat(r.content()).startsWith("exit code 0\n[... ").endsWith("99999\n100000\n");
        assertThat(r.truncated()).as("the tool's own cap keeps its answer within the pipeline's budget").isFalse();
        assertThat(r.content().getBytes(java.nio.charset.StandardCharsets.UTF_8).length).isLessThanOrEqualTo(16_384);
    }

    @Test
    void theApprovalPreviewShowsTheCommandLine() throws Exception {
        ShellTool tool = new ShellTool(workspace, ShellOptions.unsandboxedHost("ls"));
        assertThat(tool.approvalPreview(new ShellTool.Input("ls -la", java.util.Optional.of("sub"), java.util.Optional.empty()),
                ToolContext.empty())).contains("$ ls -la   (in sub)");
        assertThat(tool.safetyTier()).isEqualTo(dev.engram.framework.SafetyTier.PRIVILEGED);
    }
}
