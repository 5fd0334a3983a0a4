package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * A root JVM's sandbox is uid 65534 on the host, not only inside its namespace: it cannot change the host's device
 * nodes, its processes and files are nobody's, and it cannot write root's files in a writable directory. A workspace
 * that user cannot use is refused before anything runs, naming the path and the fix; without {@code setpriv} a root
 * JVM has no sandbox at all, never a weaker one. The host-side tests run as root with the real {@code bwrap}.
 */
class SandboxUserTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<String> DEVICES = List.of("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
            "/dev/tty");

    @TempDir
    Path tmp;

    private Path root;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(tmp.resolve("ws"));
        Files.createDirectories(root.resolve("out"));
        Files.writeString(root.resolve("README"), "read me");
    }

    private static void assumeRootWithBubblewrap() {
        assumeTrue(Bubblewrap.find().isPresent(), "skipped: bwrap is not installed (" + Bubblewrap.INSTALL + ")");
        assumeTrue(SandboxUser.forThisJvm().dropsRoot(), "skipped: the JVM is not root, so its sandbox is its own user");
    }

    private static ToolResult run(ShellTool shell, String command) {
        return ToolExecutor.builder(ToolRegistry.create().register(DynamicTool.from(shell))).approvalMode(ApprovalMode.YOLO)
                .build().execute(ToolCall.of("shell_exec", JSON.writeValueAsString(Map.of("command", command))),
                        ToolContext.empty());
    }

    private static ShellOptions anything() {
        return ShellOptions.sandboxed().withAnyCommand().withShellSyntax();
    }

    @Test
    void nothingInsideCanChangeTheHostsDeviceNodes() throws Exception {
        assumeRootWithBubblewrap();
        SandboxDirs.share(tmp, root, root);
        Map<String, Object> before = new HashMap<>();
        for (String device : DEVICES) {
            before.put(device, Files.readAttributes(Path.of(device), "unix:mode,ctime"));
        }
        // Each node's own mode given back: harmless where chmod is allowed (today's root sandbox), which then changes
        // the node's ctime on the host; refused where the sandbox is not the node's owner.
        String out = run(new ShellTool(Workspace.of(root), anything()),
                "for d in " + String.join(" ", DEVICES) + "; do chmod $(stat -c %a $d) $d && echo CHANGED $d; done; echo done")
                .content();
        assertThat(out).contains("done").doesNotContain("CHANGED").contains("Operation not permitted");
        for (String device : DEVICES) {
            assertThat(Files.readAttributes(Path.of(device), "unix:mode,ctime")).as(device).isEqualTo(before.get(device));
        }
    }

    @Test
    void theSandboxsProcessesAndFilesAreNobodysOnTheHost() throws Exception {
        assumeRootWithBubblewrap();
        SandboxDirs.share(tmp, root, root);
        ShellTool shell = new ShellTool(Workspace.of(root), anything());
        CompletableFuture<ToolResult> call = CompletableFuture.supplyAsync(() -> run(shell, "touch out/made; sleep 60; echo woke"));
        Optional<ProcessHandle> sleeper = Optional.empty();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (sleeper.isEmpty() && System.nanoTime() < deadline) {
            sleeper = ProcessHandle.current().descendants()
                    .filter(p -> p.info().command().map(c -> c.endsWith("/sleep")).orElse(false)).findFirst();
            Thread.sleep(20);
        }
        assertThat(sleeper).as("the sandboxed command, seen from the host").isPresent();
        String status = Files.readString(Path.of("/proc/" + sleeper.get().pid() + "/status"));
        assertThat(status.lines().filter(l -> l.startsWith("Uid:") || l.startsWith("Gid:")).toList())
                .as("real, effective, saved and file-system ids on the host").containsExactly(
                        "Uid:\t65534\t65534\t65534\t65534", "Gid:\t65534\t65534\t65534\t65534");
        assertThat(status).contains("NoNewPrivs:\t1");
        sleeper.get().destroy();
        assertThat(call.get(30, TimeUnit.SECONDS).content()).as("the shell goes on once its sleep is killed")
                .startsWith("exit code 0\n").endsWith("woke\n");
        assertThat(Files.getAttribute(root.resolve("out/made"), "unix:uid")).isEqualTo(65534);
    }

    @Test
    void rootsFilesInAWritableDirectoryCannotBeWritten() throws Exception {
        assumeRootWithBubblewrap();
        SandboxDirs.share(tmp, root, root);
        Path roots = Files.writeString(root.resolve("out/roots.txt"), "root's\n");
        Files.setAttribute(roots, "unix:uid", 0);
        Files.setAttribute(roots, "unix:gid", 0);
        Files.setPosixFilePermissions(roots, PosixFilePermissions.fromString("rw-r--r--"));
        String out = run(new ShellTool(Workspace.of(root), anything()),
                "echo pwned >> out/roots.txt && echo WROTE; chmod 666 out/roots.txt && echo CHMODDED; echo done").content();
        assertThat(out).contains("done").doesNotContain("WROTE", "CHMODDED").contains("Permission denied");
        assertThat(roots).hasContent("root's\n");
        assertThat(Files.getAttribute(roots, "unix:mode")).isEqualTo(0100644);
    }

    @Test
    void whatTheFileToolsWriteInTheSandboxsDirectoryStaysTheSandboxs() throws Exception {
        assumeRootWithBubblewrap();
        SandboxDirs.share(tmp, root, root);
        Files.setAttribute(root.resolve("README"), "unix:mode", 0640);
        ToolExecutor files = ToolExecutor.builder(ToolRegistry.create().registerAll(BuiltinTools.files(Workspace.of(root))))
                .approvalMode(ApprovalMode.YOLO).build();
        assertThat(files.execute(ToolCall.of("file_write", JSON.writeValueAsString(Map.of("path", "sub/deeper/new.txt",
                "content", "hello\n"))), ToolContext.empty()).status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(files.execute(ToolCall.of("file_edit", JSON.writeValueAsString(Map.of("path", "README", "old_text", "read me",
                "new_text", "read me twice"))), ToolContext.empty()).status()).isEqualTo(ToolStatus.SUCCESS);
        for (String made : List.of("sub", "sub/deeper")) {
            assertThat(Files.readAttributes(root.resolve(made), "unix:uid,gid,mode")).as(made)
                    .containsEntry("uid", 65534).containsEntry("gid", 65534).containsEntry("mode", 040755);
        }
        assertThat(Files.readAttributes(root.resolve("sub/deeper/new.txt"), "unix:uid,gid,mode"))
                .containsEntry("uid", 65534).containsEntry("gid", 65534).containsEntry("mode", 0100644);
        assertThat(Files.readAttributes(root.resolve("README"), "unix:uid,gid,mode")).as("replaced, and still what it was")
                .containsEntry("uid", 65534).containsEntry("gid", 65534).containsEntry("mode", 0100640);
        assertThat(run(new ShellTool(Workspace.of(root), anything()), "cat sub/deeper/new.txt README && echo more >> "
                + "sub/deeper/new.txt && touch sub/deeper/other && echo ok").content())
                .isEqualTo("exit code 0\nhello\nread me twiceok\n");
    }

    /** A root JVM's sandbox as the tool sees it, whoever runs the test: the checks are made before anything starts. */
    private ShellTool asRoot(Workspace workspace) {
        return new ShellTool(workspace, ShellOptions.sandboxed("touch"), Optional.of(Bubblewrap.at(Path.of("/usr/bin/bwrap"),
                SandboxUser.of(0, 0, Optional.of(Path.of("/usr/bin/setpriv"))))));
    }

    @Test
    void aWorkspaceTheSandboxCannotReachIsRefusedNamingTheDirectoryAndTheFix() throws Exception {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        int owner = (Integer) Files.getAttribute(tmp, "unix:uid");
        ToolResult r = run(asRoot(Workspace.of(root)), "touch ran");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).isEqualTo("The sandbox runs as uid 65534 (this JVM is root) and cannot reach the workspace "
                + root + " through " + tmp + " (mode 0700, owner " + owner + ":" + Files.getAttribute(tmp, "unix:gid")
                + "); the operator can run: chmod o+x " + tmp + ". Nothing was run.");
        assertThat(root.resolve("ran")).doesNotExist();
    }

    @Test
    void aWritableDirectoryTheSandboxCannotWriteIsRefusedWithTheChownToRun() throws Exception {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(root.resolve("out"), PosixFilePermissions.fromString("rwxr-xr-x"));
        ToolResult r = run(asRoot(Workspace.builder(root).writable("out").build()), "touch out/ran");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).startsWith("The sandbox runs as uid 65534 (this JVM is root) and cannot write the writable "
                        + "directory " + root.resolve("out") + " (mode 0755")
                .endsWith("the operator can run: chown -R 65534:65534 " + root.resolve("out") + " (files the sandbox writes "
                        + "belong to uid 65534 on the host). Nothing was run.");
        assertThat(root.resolve("out/ran")).doesNotExist();
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
        assertThat(run(asRoot(Workspace.builder(root).readOnly().build()), "touch ran").content())
                .as("a read-only workspace needs reading").contains("cannot read the workspace " + root + " (mode 0700")
                .contains("chmod o+rx " + root);
    }

    @Test
    void withoutSetprivARootJvmHasNoSandboxAndNoHostFallbackSayingWhatToInstall() throws Exception {
        SandboxUser noSetpriv = SandboxUser.of(0, 0, Optional.empty());
        assertThat(noSetpriv.refusal()).hasValueSatisfying(why -> assertThat(why).contains("apt-get install util-linux"));
        Bubblewrap bwrap = Bubblewrap.at(Path.of("/usr/bin/bwrap"), noSetpriv);
        assertThatThrownBy(() -> new ShellTool(Workspace.of(root), ShellOptions.sandboxed("touch"), Optional.of(bwrap)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("apt-get install util-linux");
        ShellTool fallback = new ShellTool(Workspace.of(root), ShellOptions.of("touch").withUnsandboxedHostFallback(),
                Optional.of(bwrap));
        ToolResult r = run(fallback, "touch ran");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).contains("setpriv is not installed").contains("apt-get install util-linux")
                .endsWith("Nothing was run.");
        assertThat(root.resolve("ran")).as("not run on the host either").doesNotExist();
        assertThatThrownBy(() -> PythonTools.of(Duration.ofSeconds(5), SandboxLimits.defaults(), Optional.of(bwrap)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("apt-get install util-linux");
        assertThatThrownBy(() -> bwrap.wrap(Workspace.of(root), root, List.of("id"), SandboxLimits.defaults()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("apt-get install util-linux");
    }

    @Test
    void onlyARootJvmChangesUserAndItFindsSetprivInTheSystemDirectories() {
        SandboxUser ordinary = SandboxUser.of(1000, 1000, Optional.empty());
        assertThat(ordinary.launcher()).isEmpty();
        assertThat(ordinary.refusal()).isEmpty();
        assertThat(ordinary.uid()).isEqualTo(1000);
        assertThat(ordinary.dropsRoot()).isFalse();
        SandboxUser root = SandboxUser.of(0, 0, Optional.of(Path.of("/usr/bin/setpriv")));
        assertThat(root.launcher()).containsExactly("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--");
        assertThat(root.uid()).isEqualTo(65534);
        assertThat(root.gid()).isEqualTo(65534);
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "skipped: setpriv is not installed (apt-get install util-linux)");
        assertThat(SandboxUser.findSetpriv("")).as("found without a PATH").contains(Path.of("/usr/bin/setpriv"));
    }
}
