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
import dev.engram.framework.ToolStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * shell_exec contained: on the host, the argument policy refuses each escape the review found; in
 * the bubblewrap sandbox (tested with the real {@code bwrap} when it is installed), the host outside
 * the workspace is out of reach whatever the command does.
 */
class ShellSandboxTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    private Path root;
    private Path outside;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(tmp.resolve("ws"));
        outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("SECRET"), "top secret");
        Files.writeString(root.resolve("a.txt"), "a");
    }

    private ToolResult run(ShellOptions options, String command) {
        DynamicTool tool = DynamicTool.from(new ShellTool(Workspace.of(root), options));
        return ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(ApprovalMode.YOLO).build()
                .execute(ToolCall.of("shell_exec", JSON.writeValueAsString(java.util.Map.of("command", command))),
                        ToolContext.empty());
    }

    static Stream<Arguments> escapes() {
        return Stream.of(
                Arguments.of("ls -la OUTSIDE", "it points outside the workspace"),
                Arguments.of("git -c alias.x=!id x", "git option -c changes"),
                Arguments.of("git -c core.pager=id log", "git option -c changes"),
                Arguments.of("git diff --no-index --output=OUTSIDE/file a.txt a.txt", "git option --output changes"),
                Arguments.of("git --git-dir=OUTSIDE status", "git option --git-dir changes"),
                Arguments.of("git -C OUTSIDE status", "git option -C changes"),
                Arguments.of("git --exec-path=/tmp status", "git option --exec-path changes"),
                Arguments.of("git config alias.x !id", "git config is not one of the subcommands allowed here"),
                Arguments.of("git x", "git x is not one of the subcommands allowed here"),
                Arguments.of("find . -exec id {} +", "find action -exec runs a program"),
                Arguments.of("find . -delete", "find action -delete runs a program or writes a file"),
                Arguments.of("find . -fprint OUTSIDE/list", "find action -fprint runs a program or writes a file"),
                Arguments.of("ls ~/.ssh", "it points outside the workspace"),
                Arguments.of("ls ../outside", "it points outside the workspace"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("escapes")
    void onTheHostEachEscapeIsRefusedBeforeAnythingRuns(String command, String why) {
        ToolResult r = run(ShellOptions.unsandboxedHost("ls", "git", "find"), command.replace("OUTSIDE", outside.toString()));
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).contains(why).contains("Nothing was run");
    }

    @Test
    void onTheHostOrdinaryCommandsStillRun() {
        assertThat(run(ShellOptions.unsandboxedHost("ls", "git"), "ls -1").content()).isEqualTo("exit code 0\na.txt\n");
        assertThat(run(ShellOptions.unsandboxedHost("git"), "git init -q").content()).startsWith("exit code 0");
        assertThat(run(ShellOptions.unsandboxedHost("git"), "git status --short").content()).contains("?? a.txt");
    }

    @Test
    void theFileToolsDoNotWriteHiddenFiles() {
        ToolRegistry files = ToolRegistry.create().registerAll(BuiltinTools.files(Workspace.of(root)));
        for (String path : new String[] {".gitconfig", ".git/config", "sub/.bashrc"}) {
            ToolResult r = ToolExecutor.builder(files).approvalMode(ApprovalMode.YOLO).build().execute(ToolCall.of("file_write",
                    JSON.writeValueAsString(java.util.Map.of("path", path, "content", "[alias]\n x = !id\n"))), ToolContext.empty());
            assertThat(r.content()).as(path).contains("hidden files (such as .git and .gitconfig) hold configuration");
            assertThat(root.resolve(path)).doesNotExist();
        }
    }

    private void assumeBubblewrap() {
        assumeTrue(Bubblewrap.find().isPresent(), "skipped: bwrap is not installed (apt-get install bubblewrap)");
        // Only for the sandbox: on the host, git refuses a repository that is not the JVM's user's.
        SandboxDirs.share(tmp, root, root);
    }

    @Test
    void inTheSandboxTheHostOutsideTheWorkspaceIsOutOfReach() {
        assumeBubblewrap();
        ShellOptions options = ShellOptions.sandboxed().withAnyCommand().withShellSyntax();
        assertThat(new ShellTool(Workspace.of(root), options).sandboxed()).isTrue();
        // What the host policy would refuse is contained instead: the command runs, and sees no host.
        assertThat(run(options, "cat " + outside.resolve("SECRET") + " || echo unreadable").content())
                .contains("unreadable").doesNotContain("top secret");
        assertThat(run(options, "ls /home /root 2>&1; echo done").content()).contains("done").doesNotContain("SECRET");
        assertThat(run(options, "echo hi > " + outside.resolve("planted") + " || echo refused").content()).contains("refused");
        assertThat(outside.resolve("planted")).doesNotExist();
        assertThat(run(options, "echo kept > kept.txt && cat kept.txt").content()).contains("kept");
        assertThat(root.resolve("kept.txt")).hasContent("kept\n");
        assertThat(run(options, "echo $HOME; touch $HOME/x && ls $HOME").content()).contains(Bubblewrap.HOME).contains("x");
    }

    @Test
    void inTheSandboxThereIsNoNetworkAndNoHostProcess() {
        assumeBubblewrap();
        ShellOptions options = ShellOptions.sandboxed().withAnyCommand().withShellSyntax();
        assertThat(run(options, "cat /sys/class/net/*/operstate 2>/dev/null; ls /proc | grep -c '^[0-9]'").content())
                .as("a new PID namespace: only the sandbox's own few processes").satisfies(out ->
                        assertThat(Integer.parseInt(out.lines().reduce((a, b) -> b).orElseThrow().strip())).isLessThan(10));
        String net = run(options, "(exec 3<>/dev/tcp/127.0.0.1/1) 2>&1; echo status $?").content();
        assertThat(net).doesNotContain("status 0");
    }

    @Test
    void withoutBubblewrapASandboxIsRefusedAtCreationSayingHowToInstallIt() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ShellTool(Workspace.of(root), ShellOptions.sandboxed("ls"),
                        java.util.Optional.empty()))
                .hasMessageContaining("apt-get install bubblewrap");
        assertThat(Bubblewrap.find("")).as("no bwrap on an empty search path").isEmpty();
    }
}
