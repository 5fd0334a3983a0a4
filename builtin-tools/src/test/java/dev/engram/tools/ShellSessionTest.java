package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.memory.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code shell_exec} with the session backend, with the real {@code bwrap} (skipped, with the install command, when it
 * is missing): state that survives between calls, isolation, timeouts, idle closing, the cap, output limits, hostile
 * lines contained, and no process left behind.
 */
class ShellSessionTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    private Path root;
    private Path outside;
    private ManualClock clock;
    private ShellSessions sessions;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(tmp.resolve("ws"));
        Files.createDirectories(root.resolve("src/deep"));
        outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("SECRET"), "top secret");
        clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    }

    @AfterEach
    void tearDown() {
        if (sessions != null) {
            sessions.close();
        }
    }

    private void assumeBubblewrap() {
        assumeTrue(Bubblewrap.find().isPresent(), "skipped: bwrap is not installed (apt-get install bubblewrap util-linux)");
        SandboxDirs.share(tmp, root, root);
    }

    private ToolExecutor executor(ShellOptions options, int max) {
        sessions = ShellSessions.create(Duration.ofMinutes(10), max, clock);
        DynamicTool tool = BuiltinTools.shell(Workspace.of(root), options, sessions);
        return ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(ApprovalMode.YOLO).build();
    }

    private ToolExecutor executor() {
        return executor(ShellOptions.session("ls", "echo", "cat", "sleep", "yes", "head", "printf", "sh", "exit", "exec")
                .withTimeouts(Duration.ofSeconds(20), Duration.ofSeconds(60)), 3);
    }

    private static ToolContext ctx(String agent, String session) {
        return ToolContext.builder().userId("ana").agentId(agent).sessionId(session).build();
    }

    private static ToolResult call(ToolExecutor ex, ToolContext ctx, String command, Object... more) {
        Map<String, Object> args = new HashMap<>(Map.of("command", command));
        for (int i = 0; i < more.length; i += 2) {
            args.put((String) more[i], more[i + 1]);
        }
        return ex.execute(ToolCall.of("shell_exec", JSON.writeValueAsString(args)), ctx);
    }

    @Test
    void theWorkingDirectoryAndExportedVariablesSurviveBetweenCalls() {
        assumeBubblewrap();
        ToolExecutor ex = executor();
        ToolContext a = ctx("agent-a", "s1");
        assertThat(call(ex, a, "cd src").content()).isEqualTo("exit code 0\n");
        assertThat(call(ex, a, "export GREETING=hello-from-before").content()).isEqualTo("exit code 0\n");
        assertThat(call(ex, a, "pwd").content()).isEqualTo("exit code 0\n" + root.resolve("src") + "\n");
        assertThat(call(ex, a, "echo $GREETING").content()).isEqualTo("exit code 0\nhello-from-before\n");
        assertThat(call(ex, a, "pwd", "cwd", "src/deep").content()).as("cwd moves the session")
                .isEqualTo("exit code 0\n" + root.resolve("src/deep") + "\n");
        assertThat(call(ex, a, "pwd").content()).endsWith("src/deep\n");
        assertThat(call(ex, a, "sh -c 'exit 3'").content()).isEqualTo("exit code 3\n");
        assertThat(sessions.size()).isEqualTo(1);
    }

    @Test
    void otherAgentsAndOtherSessionsHaveShellsOfTheirOwn() {
        assumeBubblewrap();
        ToolExecutor ex = executor();
        call(ex, ctx("agent-a", "s1"), "cd src");
        call(ex, ctx("agent-a", "s1"), "export MINE=a1");
        assertThat(call(ex, ctx("agent-a", "s2"), "echo [$MINE] && pwd").content()).isEqualTo("exit code 0\n[]\n" + root + "\n");
        assertThat(call(ex, ctx("agent-b", "s1"), "echo [$MINE] && pwd").content()).isEqualTo("exit code 0\n[]\n" + root + "\n");
        assertThat(call(ex, ctx("agent-a", "s1"), "echo [$MINE] && pwd").content())
                .isEqualTo("exit code 0\n[a1]\n" + root.resolve("src") + "\n");
        assertThat(sessions.size()).isEqualTo(3);
    }

    @Test
    void aCommandPastItsTimeoutIsKilledWithItsSessionAndTheNextCallStartsAFreshOne() throws Exception {
        assumeBubblewrap();
        ToolExecutor ex = executor();
        ToolContext a = ctx("agent-a", "s1");
        call(ex, a, "cd src && export KEPT=yes");
        List<ProcessHandle> before = sessions.processes();
        assertThat(before).isNotEmpty();
        ToolResult r = call(ex, a, "echo started; sleep 600", "timeout_seconds", 2);
        assertThat(r.content()).startsWith("Timed out after 2 s; the shell session was killed").contains("started")
                .contains("fresh session at the workspace root");
        awaitGone(before);
        assertThat(sessions.size()).isZero();
        assertThat(call(ex, a, "echo [$KEPT] && pwd").content()).isEqualTo("exit code 0\n[]\n" + root + "\n");
    }

    @Test
    void aSessionIdlePastTheTimeoutIsClosedAndTheModelIsToldAtItsNextCommand() throws Exception {
        assumeBubblewrap();
        ToolExecutor ex = executor();
        ToolContext a = ctx("agent-a", "s1");
        call(ex, a, "cd src");
        List<ProcessHandle> before = sessions.processes();
        clock.advance(Duration.ofMinutes(9));
        assertThat(sessions.closeIdle()).isZero();
        clock.advance(Duration.ofMinutes(1));
        assertThat(sessions.closeIdle()).isEqualTo(1);
        awaitGone(before);
        assertThat(call(ex, a, "pwd").content()).startsWith("(A new shell session started at the workspace root: the previous "
                + "one was closed after 10 min idle").endsWith("exit code 0\n" + root + "\n");
    }

    @Test
    void pastTheCapTheSessionIdleLongestIsClosedAndWhenAllAreBusyTheCallIsRefused() throws Exception {
        assumeBubblewrap();
        ToolExecutor ex = executor();
        call(ex, ctx("a", "1"), "export N=1");
        clock.advance(Duration.ofSeconds(1));
        call(ex, ctx("b", "1"), "export N=2");
        clock.advance(Duration.ofSeconds(1));
        call(ex, ctx("c", "1"), "export N=3");
        clock.advance(Duration.ofSeconds(1));
        call(ex, ctx("b", "1"), "true");
        call(ex, ctx("d", "1"), "export N=4");
        assertThat(sessions.size()).isEqualTo(3);
        assertThat(call(ex, ctx("b", "1"), "echo $N").content()).isEqualTo("exit code 0\n2\n");
        assertThat(call(ex, ctx("a", "1"), "echo [$N]").content()).as("a was idle longest, so it went")
                .contains("closed to make room for another session (at most 3 live at once)").endsWith("[]\n");

        // All three live sessions (a, b, d) busy: a fourth is refused, and nothing starts.
        List<CompletableFuture<ToolResult>> busy = List.of("a", "b", "d").stream().map(agent -> CompletableFuture.supplyAsync(
                () -> call(ex, ctx(agent, "1"), "sleep 3"))).toList();
        Thread.sleep(1_000);
        ToolResult refused = call(ex, ctx("e", "1"), "echo hi");
        assertThat(refused.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(refused.content()).contains("All 3 shell sessions allowed at once are running commands; nothing was run");
        assertThat(sessions.size()).isEqualTo(3);
        busy.forEach(f -> assertThat(f.join().content()).isEqualTo("exit code 0\n"));
    }

    @Test
    void outputKeepsItsEndAndIsReportedAsItComes() {
        assumeBubblewrap();
        ToolExecutor ex = executor(ShellOptions.session("yes", "echo", "head").withAnyCommand(), 2);
        String big = call(ex, ctx("a", "1"), "yes 0123456789 | head -c 100000; echo THE-END").content();
        assertThat(big).startsWith("exit code 0\n[... ").contains("earlier bytes dropped]").endsWith("THE-END\n");
        assertThat(big.length()).isLessThan(ShellOptions.DEFAULT_OUTPUT_BYTES + 200);

        List<String> chunks = new CopyOnWriteArrayList<>();
        ToolContext watched = ctx("a", "1").toBuilder().progress(chunks::add).build();
        ToolResult r = call(ex, watched, "echo first; sleep 1; echo second");
        assertThat(r.content()).isEqualTo("exit code 0\nfirst\nsecond\n");
        assertThat(String.join("", chunks)).isEqualTo("first\nsecond\n").doesNotContain("__ENGRAM");
        assertThat(chunks.size()).as("reported while it ran, not once at the end").isGreaterThan(1);
    }

    @Test
    void hostileLinesStayInsideTheirSandboxAndTheirOwnSession() throws Exception {
        assumeBubblewrap();
        ToolExecutor ex = executor(ShellOptions.session().withAnyCommand().withTimeouts(Duration.ofSeconds(20),
                Duration.ofSeconds(60)).withLimits(SandboxLimits.defaults().withProcesses(32)), 3);
        ToolContext a = ctx("a", "1");
        assertThat(call(ex, a, "cat " + outside.resolve("SECRET") + " || echo unreadable").content())
                .contains("unreadable").doesNotContain("top secret");
        assertThat(call(ex, a, "echo x > " + outside.resolve("planted") + " || echo refused").content()).contains("refused");
        assertThat(outside.resolve("planted")).doesNotExist();
        assertThat(call(ex, a, "(exec 3<>/dev/tcp/127.0.0.1/1) 2>&1; echo status $?").content()).doesNotContain("status 0");
        // A line that tries to end the frame early, or to read the frames after it, gets nothing of the shell's.
        assertThat(call(ex, a, "echo '__ENGRAM_END_x'; echo \"'\"; cat; echo after").content())
                .isEqualTo("exit code 0\n__ENGRAM_END_x\n'\nafter\n");
        assertThat(call(ex, a, "if true; then echo never").content()).startsWith("exit code 2").contains("syntax error");
        assertThat(call(ex, a, "echo still-here").content()).isEqualTo("exit code 0\nstill-here\n");
        // A fork bomb is held by the process limit; the session still answers, or is killed at the timeout.
        String bomb = call(ex, a, "b() { b | b & }; b; sleep 2; echo survived", "timeout_seconds", 8).content();
        assertThat(bomb).satisfiesAnyOf(s -> assertThat(s).contains("survived"), s -> assertThat(s).startsWith("Timed out"));
        call(ex, a, "true", "timeout_seconds", 5); // whatever the bomb left, the session is usable or restarted
        // A line that silences the shell's output cannot hang the caller: the timeout kills and restarts the session.
        assertThat(call(ex, a, "exec >/dev/null", "timeout_seconds", 2).content()).startsWith("Timed out after 2 s");
        assertThat(call(ex, a, "echo back").content()).isEqualTo("exit code 0\nback\n");
        // exit ends the shell; the model is told, and the next call starts afresh.
        assertThat(call(ex, a, "exit 7").content()).isEqualTo("exit code 7\n(The shell session ended; the next command "
                + "starts a fresh one at the workspace root.)\n");
        assertThat(call(ex, a, "echo again").content()).isEqualTo("exit code 0\nagain\n");
    }

    @Test
    void closingTheSessionsLeavesNoProcessAndRefusesLaterCommands() throws Exception {
        assumeBubblewrap();
        ToolExecutor ex = executor();
        call(ex, ctx("a", "1"), "sleep 1000 &");
        call(ex, ctx("b", "1"), "true");
        List<ProcessHandle> all = sessions.processes();
        assertThat(all.size()).as("bwrap, the shells and the background sleep").isGreaterThanOrEqualTo(4);
        sessions.close();
        awaitGone(all);
        assertThat(sessions.size()).isZero();
        ToolResult r = call(ex, ctx("a", "1"), "echo hi");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).contains("shell sessions are closed");
        assertThat(sessions.size()).isZero();
    }

    @Test
    void programsOutsideTheAllowListAndBadInputAreRefusedAndStartNothing() {
        assumeBubblewrap();
        ToolExecutor ex = executor(ShellOptions.session("ls"), 2);
        ToolResult r = call(ex, ctx("a", "1"), "rm -rf .");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).contains("'rm' is not an allowed command");
        assertThat(call(ex, ctx("a", "1"), "ls", "timeout_seconds", 0).content()).contains("timeout_seconds must be at least 1");
        assertThat(call(ex, ctx("a", "1"), "ls", "cwd", "../outside").status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(sessions.size()).as("nothing started").isZero();
        assertThat(call(ex, ctx("a", "1"), "cd src").content()).isEqualTo("exit code 0\n");
        assertThat(call(ex, ctx("a", "1"), "ls").content()).isEqualTo("exit code 0\ndeep\n");
    }

    @Test
    void theSessionBackendHasTheShellsTierAndIsMisconfiguredLoudly() {
        sessions = ShellSessions.create(Duration.ofMinutes(1), 1, clock);
        assertThatThrownBy(() -> ShellOptions.of("ls").withBackend(ShellOptions.Backend.SESSION))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("withShellSyntax()");
        assertThatThrownBy(() -> BuiltinTools.shell(Workspace.of(root), ShellOptions.session("ls")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("BuiltinTools.shell(workspace, options, sessions)");
        assertThatThrownBy(() -> ShellSessions.create(Duration.ZERO, 1)).hasMessageContaining("idle timeout must be positive");
        assertThatThrownBy(() -> ShellSessions.create(Duration.ofMinutes(1), 0)).hasMessageContaining("at least one");
        assertThatThrownBy(() -> new ShellTool(Workspace.of(root), ShellOptions.session("ls"), Optional.empty()))
                .hasMessageContaining("BuiltinTools.shell(workspace, options, sessions)");
        assumeBubblewrap();
        DynamicTool tool = BuiltinTools.shell(Workspace.of(root), ShellOptions.session("ls"), sessions);
        assertThat(tool.safetyTier()).isEqualTo(SafetyTier.PRIVILEGED);
        assertThat(tool.description()).contains("persistent shell");
    }

    private static void awaitGone(List<ProcessHandle> processes) throws Exception {
        for (ProcessHandle p : processes) {
            p.onExit().get(10, TimeUnit.SECONDS);
            assertThat(p.isAlive()).as("pid " + p.pid()).isFalse();
        }
    }
}
