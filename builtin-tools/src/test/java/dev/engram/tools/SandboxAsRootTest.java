package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * The bubblewrap sandbox holds when the JVM is root (as in a container, and in CI): nothing inside can remount
 * a read-only bind writable, commands run as {@code nobody} (on the host too: {@link SandboxUserTest}), and the
 * {@link SandboxLimits} stop what would take the machine's processes, disk, CPU or memory. Runs with the real
 * {@code bwrap}.
 */
class SandboxAsRootTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    private Path root;

    @BeforeEach
    void setUp() throws Exception {
        assumeTrue(Bubblewrap.find().isPresent(), "skipped: bwrap is not installed (" + Bubblewrap.INSTALL + ")");
        root = Files.createDirectories(tmp.resolve("ws"));
        Files.createDirectories(root.resolve("out"));
        Files.writeString(root.resolve("README"), "read me");
        SandboxDirs.share(tmp, root, root);
    }

    private static ShellOptions shell() {
        return ShellOptions.sandboxed().withAnyCommand().withShellSyntax();
    }

    private ToolResult run(Workspace workspace, ShellOptions options, String command) {
        DynamicTool tool = DynamicTool.from(new ShellTool(workspace, options));
        return ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(ApprovalMode.YOLO).build()
                .execute(ToolCall.of("shell_exec", JSON.writeValueAsString(Map.of("command", command))), ToolContext.empty());
    }

    private ToolResult run(ShellOptions options, String command) {
        return run(Workspace.of(root), options, command);
    }

    @Test
    void theArgvDropsEveryCapabilityBoundsTmpAndSetsTheLimitsInside() {
        SandboxLimits limits = SandboxLimits.defaults().withTmpBytes(5 * 1024 * 1024);
        List<String> argv = Bubblewrap.find().orElseThrow().wrap(Workspace.of(root), root, List.of("ls"), limits);
        assertThat(argv).containsSubsequence("--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL");
        assertThat(argv).containsSubsequence("--size", "5242880", "--tmpfs", "/tmp");
        assertThat(argv.subList(argv.indexOf("--chdir") + 2, argv.size())).containsExactly("--", "/usr/bin/prlimit",
                "--as=" + limits.addressSpaceBytes(), "--nproc=" + limits.processes(), "--fsize=" + limits.fileSizeBytes(),
                "--cpu=" + limits.cpuSeconds() + ":" + (limits.cpuSeconds() + 1), "--", "ls");
        SandboxUser user = SandboxUser.forThisJvm();
        if (user.dropsRoot()) {
            assertThat(argv.subList(0, 6)).as("bwrap started as uid 65534 on the host").containsExactly("/usr/bin/setpriv",
                    "--reuid=65534", "--regid=65534", "--clear-groups", "--", Bubblewrap.find().orElseThrow().executable().toString());
        } else {
            assertThat(argv.getFirst()).as("bwrap started as the JVM's own user").endsWith("bwrap");
        }
        assertThat(argv).as("no uid mapping inside: root's namespace would make any uid root outside")
                .doesNotContain("--uid", "--gid");
    }

    @Test
    void aRootJvmsCommandRunsAsNobodyWithNoCapabilityAndItsFilesLandInTheWorkspaceOwnedByNobody() throws Exception {
        assumeTrue(SandboxUser.forThisJvm().dropsRoot(), "skipped: the JVM is not root, so its sandbox runs as its own user");
        String out = run(shell(), "id -u; id -g; grep CapEff /proc/self/status; echo written > out/file.txt").content();
        assertThat(out).startsWith("exit code 0\n65534\n65534\n").contains("CapEff:\t0000000000000000");
        assertThat(root.resolve("out/file.txt")).hasContent("written\n");
        assertThat(Files.getAttribute(root.resolve("out/file.txt"), "unix:uid")).as("owned by nobody outside, not root")
                .isEqualTo(65534);
        assertThat(Files.getAttribute(root.resolve("out/file.txt"), "unix:gid")).isEqualTo(65534);
    }

    @Test
    void nothingInsideCanRemountUsrWritable() throws Exception {
        Path planted = Path.of("/usr/engram-escape-" + UUID.randomUUID());
        try {
            String out = run(shell(), "mount -o remount,rw,bind /usr; echo pwned > " + planted + "; echo done").content();
            assertThat(out).contains("done");
            assertThat(planted).as("the host's /usr is not written").doesNotExist();
        } finally {
            Files.deleteIfExists(planted);
        }
    }

    @Test
    void nothingInsideCanWriteTheKernelsSettings() throws Exception {
        // The same value written back: harmless where the write is refused, and where it is not.
        String before = Files.readString(Path.of("/proc/sys/kernel/printk"));
        String out = run(shell(), "v=$(cat /proc/sys/kernel/printk); echo \"$v\" > /proc/sys/kernel/printk && echo WROTE; "
                + "echo done").content();
        assertThat(out).contains("done").doesNotContain("WROTE");
        assertThat(Files.readString(Path.of("/proc/sys/kernel/printk"))).isEqualTo(before);
    }

    @Test
    void nothingInsideCanRemountTheReadOnlyPartOfTheWorkspace() {
        Workspace workspace = Workspace.builder(root).writable("out").build();
        String out = run(workspace, shell(), "mount -o remount,rw,bind " + root + "; echo pwned > " + root.resolve("planted")
                + "; echo pwned > README; echo ok > out/kept; echo done").content();
        assertThat(out).contains("done");
        assertThat(root.resolve("planted")).doesNotExist();
        assertThat(root.resolve("README")).hasContent("read me");
        assertThat(root.resolve("out/kept")).hasContent("ok\n");
    }

    @Test
    void theKernelHoldsAForkBombAtTheProcessLimit() throws Exception {
        ShellOptions options = ShellOptions.sandboxed("python3").withLimits(SandboxLimits.defaults().withProcesses(16))
                .withTimeouts(Duration.ofSeconds(60), Duration.ofSeconds(60));
        // A bounded bomb (64 sleepers at most), so that a failing sandbox cannot take the machine; it counts what the
        // kernel let it start and every process of the sandbox's PID namespace (bubblewrap's init among them).
        Files.writeString(root.resolve("bomb.py"), """
                import os, time
                started, why = 0, "none"
                for _ in range(64):
                    try:
                        if os.fork() == 0:
                            time.sleep(30)
                            os._exit(0)
                        started += 1
                    except OSError as e:
                        why = type(e).__name__
                        break
                print("started", started, why, "in the sandbox", len([p for p in os.listdir("/proc") if p.isdigit()]))
                """);
        String out = run(options, "python3 bomb.py").content();
        assertThat(out).as("a fork past the limit fails (EAGAIN), what runs goes on: the sandbox is not root outside")
                .startsWith("exit code 0\nstarted ").contains(" BlockingIOError in the sandbox ");
        String[] words = out.lines().skip(1).findFirst().orElseThrow().split(" ");
        assertThat(Integer.parseInt(words[1])).isLessThan(16);
        assertThat(Integer.parseInt(words[words.length - 1])).isLessThanOrEqualTo(16);
    }

    @Test
    void aFileLargerThanTheLimitIsRefused() throws Exception {
        ShellOptions options = shell().withLimits(SandboxLimits.defaults().withFileSizeBytes(64 * 1024));
        String out = run(options, "head -c 1000000 /dev/zero > big; echo status $?").content();
        assertThat(out).doesNotContain("status 0");
        assertThat(Files.size(root.resolve("big"))).isLessThanOrEqualTo(64 * 1024);
    }

    @Test
    void theCpuTimeLimitKillsABusyLoopBeforeItsTimeout() {
        ShellOptions options = shell().withLimits(SandboxLimits.defaults().withCpuSeconds(1))
                .withTimeouts(Duration.ofSeconds(120), Duration.ofSeconds(120));
        String out = run(options, "while :; do :; done").content();
        assertThat(out).as("ended by SIGXCPU (exit 128 + 24), not by the 120 s timeout").startsWith("exit code 152");
    }

    @Test
    void tmpIsBounded() {
        ShellOptions options = shell().withLimits(SandboxLimits.defaults().withTmpBytes(1024 * 1024));
        String out = run(options, "head -c 3000000 /dev/zero > /tmp/fill; echo status $?; wc -c < /tmp/fill").content();
        assertThat(out).contains("status 1").contains("1048576");
    }

    @Test
    void theAddressSpaceIsBounded() {
        ShellOptions options = shell().withLimits(SandboxLimits.defaults().withAddressSpaceBytes(256L * 1024 * 1024));
        String out = run(options, "python3 -c 'b = bytearray(512 * 1024 * 1024)' 2>&1; echo status $?").content();
        assertThat(out).contains("MemoryError").doesNotContain("status 0");
    }

    @Test
    void limitsAreValidatedWhenBuilt() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SandboxLimits.defaults().withProcesses(0))
                .hasMessage("sandbox processes must be at least 8, got 0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SandboxLimits.defaults().withTmpBytes(10))
                .hasMessage("sandbox tmp bytes must be at least 1048576, got 10");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> shell().withLimits(null)).isInstanceOf(NullPointerException.class);
    }
}
