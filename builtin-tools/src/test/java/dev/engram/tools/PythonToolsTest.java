package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Imported Python tools run only in the sandbox (which holds as root), always ask for approval, and keep only the
 * end of what they print.
 */
class PythonToolsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final ObjectNode NO_ARGS = JSON.createObjectNode().put("type", "object");

    private static PythonTools runner() {
        assumeTrue(Bubblewrap.find().isPresent(), "skipped: bwrap is not installed (" + Bubblewrap.INSTALL + ")");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "skipped: python3 is not installed (apt-get install python3)");
        return PythonTools.of(Duration.ofSeconds(30));
    }

    /** Runs {@code source}'s function {@code f} with approval given. */
    private static ToolResult call(PythonTools runner, String source) {
        DynamicTool tool = runner.tool("f", "A tool from an agent file.", NO_ARGS, source);
        ToolContext approving = ToolContext.builder().approvalHandler(
                q -> CompletableFuture.completedFuture(ApprovalDecision.approve())).build();
        return ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(ApprovalMode.YOLO).build()
                .execute(ToolCall.of("f", "{}"), approving);
    }

    @Test
    void withoutBubblewrapTheRunnerIsRefusedSayingWhatToInstall() {
        assertThatThrownBy(() -> PythonTools.of(Duration.ofSeconds(5), SandboxLimits.defaults(), Optional.empty()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("apt-get install bubblewrap")
                .hasMessageContaining("never run unsandboxed on the host");
    }

    @Test
    void aPythonToolCannotRemountUsrNorWriteTheHost() throws Exception {
        PythonTools runner = runner();
        Path planted = Path.of("/usr/engram-escape-" + UUID.randomUUID());
        try {
            ToolResult r = call(runner, """
                    import os, subprocess
                    def f():
                        subprocess.run(["mount", "-o", "remount,rw,bind", "/usr"], capture_output=True)
                        try:
                            with open("%s", "w") as out:
                                out.write("pwned")
                            return "escaped"
                        except OSError as e:
                            return "refused " + str(os.getuid()) + " " + type(e).__name__
                    """.formatted(planted));
            assertThat(r.content()).startsWith("refused");
            if (SandboxUser.forThisJvm().dropsRoot()) {
                assertThat(r.content()).startsWith("refused 65534");
            }
            assertThat(planted).doesNotExist();
        } finally {
            Files.deleteIfExists(planted);
        }
    }

    @Test
    void aPythonToolRunsAsNobodyOnTheHostAndCannotChangeItsDeviceNodes() throws Exception {
        PythonTools runner = runner();
        assumeTrue(SandboxUser.forThisJvm().dropsRoot(), "skipped: the JVM is not root, so its sandbox is its own user");
        Object ctimeBefore = Files.getAttribute(Path.of("/dev/null"), "unix:ctime");
        ToolResult r = call(runner, """
                import os
                def f():
                    mode = os.stat("/dev/null").st_mode & 0o7777
                    try:
                        os.chmod("/dev/null", mode)
                        changed = "changed"
                    except OSError as e:
                        changed = type(e).__name__
                    with open("made", "w") as out:
                        out.write("x")
                    return changed + " " + str(os.getuid()) + " " + str(os.stat(".").st_uid)
                """);
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.content()).as("its own directory works; the host's /dev/null is not its to change")
                .isEqualTo("PermissionError 65534 65534");
        assertThat(Files.getAttribute(Path.of("/dev/null"), "unix:ctime")).isEqualTo(ctimeBefore);
    }

    @Test
    void everyCallAsksForApprovalEvenInYolo() {
        PythonTools runner = runner();
        DynamicTool tool = runner.tool("f", "A tool from an agent file.", NO_ARGS, "def f():\n    return 'ran'\n");
        ToolExecutor yolo = ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(ApprovalMode.YOLO).build();
        assertThat(yolo.execute(ToolCall.of("f", "{}"), ToolContext.empty()).status()).isEqualTo(ToolStatus.APPROVAL_DENIED);
        List<String> asked = new ArrayList<>();
        ToolContext ctx = ToolContext.builder().sessionId("s").approvalHandler(q -> {
            asked.add(q.toolName());
            return CompletableFuture.completedFuture(ApprovalDecision.approveForSession());
        }).build();
        assertThat(yolo.execute(ToolCall.of("f", "{}"), ctx).content()).isEqualTo("ran");
        assertThat(yolo.execute(ToolCall.of("f", "{}"), ctx).content()).isEqualTo("ran");
        assertThat(asked).containsExactly("f", "f");
    }

    @Test
    void aToolThatDoesNotReadItsLargeInputIsStillStoppedAtItsTimeout() throws Exception {
        assumeTrue(Bubblewrap.find().isPresent(), "skipped: bwrap is not installed (" + Bubblewrap.INSTALL + ")");
        PythonTools runner = PythonTools.of(Duration.ofSeconds(2));
        ObjectNode schema = JSON.createObjectNode().put("type", "object");
        schema.putObject("properties").putObject("s").put("type", "string");
        // The module sleeps before the runner reads the arguments: 1 MB of them fills the pipe, so a runner that
        // wrote them before starting its clock would wait for the sleep, and leave the sandbox running meanwhile.
        DynamicTool tool = runner.tool("f", "A tool from an agent file.", schema,
                "import time\ntime.sleep(60)\ndef f(s):\n    return len(s)\n");
        ToolContext approving = ToolContext.builder().approvalHandler(
                q -> CompletableFuture.completedFuture(ApprovalDecision.approve())).build();
        long start = System.nanoTime();
        ToolResult r = ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(ApprovalMode.YOLO).build()
                .execute(ToolCall.of("f", JSON.writeValueAsString(java.util.Map.of("s", "x".repeat(1 << 20)))), approving);
        assertThat(r.status()).as(r.content()).isNotEqualTo(ToolStatus.SUCCESS);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (sandboxesRunning() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(sandboxesRunning()).as("sandboxes still running %d s after the call began",
                Duration.ofNanos(System.nanoTime() - start).toSeconds()).isZero();
    }

    private static long sandboxesRunning() {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().map(c -> c.endsWith("bwrap")).orElse(false)).count();
    }

    @Test
    void printingFarMoreThanIsKeptStillReturnsTheResult() {
        ToolResult r = call(runner(), """
                import sys
                def f():
                    line = "x" * 1023 + "\\n"
                    for _ in range(50 * 1024):
                        sys.stdout.write(line)
                        sys.stderr.write(line)
                    return "done"
                """);
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.content()).isEqualTo("done");
    }

    @Test
    void aResultLongerThanWhatIsKeptIsRefusedWithABoundedMessage() {
        ToolResult r = call(runner(), "def f():\n    return 'y' * (50 * 1024 * 1024)\n");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).startsWith("Tool 'f' printed ").contains("its result is longer than the 65536 kept")
                .contains("earlier bytes dropped]");
        assertThat(r.content().getBytes(StandardCharsets.UTF_8).length).isLessThan(4_096);
    }

    @Test
    void aFailureAfterFloodingStandardErrorShowsOnlyItsEnd() {
        ToolResult r = call(runner(), """
                import sys
                def f():
                    for _ in range(50 * 1024):
                        sys.stderr.write("e" * 1023 + "\\n")
                    sys.stderr.flush()
                    import os
                    os._exit(9)
                """);
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).startsWith("Tool 'f' failed: [... ").contains("earlier bytes dropped]");
        assertThat(r.content().getBytes(StandardCharsets.UTF_8).length).isLessThan(4_096);
    }

    @Test
    void theTailBufferHoldsItsCapacityWhateverItDrains() {
        TailBuffer buffer = new TailBuffer(PythonTools.OUTPUT_BYTES);
        byte[] flood = new byte[50 * 1024 * 1024];
        java.util.Arrays.fill(flood, (byte) 'z');
        flood[flood.length - 1] = '!';
        buffer.drain(new ByteArrayInputStream(flood));
        assertThat(buffer.total()).isEqualTo(flood.length);
        assertThat(buffer.kept()).isEqualTo(PythonTools.OUTPUT_BYTES);
        assertThat(buffer.tail()).hasSize(PythonTools.OUTPUT_BYTES).endsWith("z!");
        assertThat(buffer.text()).startsWith("[... " + (flood.length - PythonTools.OUTPUT_BYTES) + " earlier bytes dropped]\n");
    }
}
