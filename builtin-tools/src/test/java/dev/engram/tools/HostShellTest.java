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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * The unsandboxed host is an explicit choice: without bubblewrap and without it, shell_exec refuses every call
 * saying what to install and what to choose. When chosen, the argument checks close the holes the review found:
 * real paths, symbolic links git writes, launchers, git's repository-moving options and gitfiles, attached option
 * values and split short options.
 */
class HostShellTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String[] PROGRAMS = {"ls", "cat", "grep", "git", "find", "touch", "dd", "env", "xargs", "nice",
        "timeout", "nohup", "stdbuf", "setsid", "sh", "python3"};

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

    private ToolResult run(ShellTool shell, String command, String... cwd) {
        Map<String, String> args = cwd.length == 0 ? Map.of("command", command) : Map.of("command", command, "cwd", cwd[0]);
        return ToolExecutor.builder(ToolRegistry.create().register(DynamicTool.from(shell))).approvalMode(ApprovalMode.YOLO)
                .build().execute(ToolCall.of("shell_exec", JSON.writeValueAsString(args)), ToolContext.empty());
    }

    private ToolResult onHost(String command, String... cwd) {
        return run(new ShellTool(Workspace.of(root), ShellOptions.unsandboxedHost(PROGRAMS)), command, cwd);
    }

    @Test
    void withoutBubblewrapAndWithoutTheOptInEveryCallIsRefusedSayingWhatToDo() {
        ShellTool shell = new ShellTool(Workspace.of(root), ShellOptions.of("touch"), Optional.empty());
        assertThat(shell.sandboxed()).isFalse();
        ToolResult r = run(shell, "touch made");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).isEqualTo(ShellTool.NO_SANDBOX).contains("apt-get install bubblewrap")
                .contains("--unsafe-host-shell").contains("ShellOptions.withUnsandboxedHostFallback()");
        assertThat(root.resolve("made")).doesNotExist();
    }

    @Test
    void withTheOptInCommandsRunOnTheHostOnlyWhereBubblewrapIsMissing() {
        ShellOptions optedIn = ShellOptions.of("touch").withUnsandboxedHostFallback();
        ShellTool host = new ShellTool(Workspace.of(root), optedIn, Optional.empty());
        assertThat(host.sandboxed()).isFalse();
        assertThat(run(host, "touch made").content()).isEqualTo("exit code 0\n");
        assertThat(root.resolve("made")).exists();
        assumeTrue(Bubblewrap.find().isPresent(), "skipped: bwrap is not installed (" + Bubblewrap.INSTALL + ")");
        assertThat(new ShellTool(Workspace.of(root), optedIn).sandboxed()).as("where bwrap is, the sandbox is used").isTrue();
        assertThat(new ShellTool(Workspace.of(root), ShellOptions.unsandboxedHost("ls")).sandboxed())
                .as("the explicit host backend is the host").isFalse();
    }

    static Stream<Arguments> holes() {
        return Stream.of(
                // attached option values and split short options
                Arguments.of("grep -fOUTSIDE/SECRET a.txt", "it points outside the workspace"),
                Arguments.of("grep -rfOUTSIDE/SECRET .", "it points outside the workspace"),
                Arguments.of("grep -f../outside/SECRET a.txt", "it points outside the workspace"),
                Arguments.of("grep --file=OUTSIDE/SECRET a.txt", "it points outside the workspace"),
                Arguments.of("grep -rf OUTSIDE/SECRET .", "it points outside the workspace"),
                Arguments.of("dd if=OUTSIDE/SECRET of=copy", "it points outside the workspace"),
                // launchers
                Arguments.of("env cat OUTSIDE/SECRET", "env runs the program or code its arguments name"),
                Arguments.of("env ls", "env runs the program or code its arguments name"),
                Arguments.of("xargs -a a.txt cat", "xargs runs the program"),
                Arguments.of("nice ls", "nice runs the program"),
                Arguments.of("timeout 5 ls", "timeout runs the program"),
                Arguments.of("nohup ls", "nohup runs the program"),
                Arguments.of("stdbuf -o0 ls", "stdbuf runs the program"),
                Arguments.of("setsid ls", "setsid runs the program"),
                Arguments.of("sh -c id", "sh runs the program"),
                Arguments.of("python3 a.txt", "python3 runs the program"),
                // git moving to another repository, configuration or program
                Arguments.of("git init --separate-git-dir=gd", "git option --separate-git-dir changes"),
                Arguments.of("git init --separate-git-dir gd", "git option --separate-git-dir changes"),
                Arguments.of("git init --template=tpl", "git option --template changes"),
                Arguments.of("git --git-dir=.git status", "git option --git-dir changes"),
                Arguments.of("git --work-tree=. status", "git option --work-tree changes"),
                Arguments.of("git -C . status", "git option -C changes"),
                Arguments.of("git -ccore.pager=id log", "git option -ccore.pager changes"),
                Arguments.of("git -c core.worktree=.. status", "git option -c changes"),
                Arguments.of("git diff --ext a.txt", "git option --ext-diff (abbreviated --ext) changes"),
                Arguments.of("git log --textc", "git option --textconv (abbreviated --textc) changes"),
                Arguments.of("git grep -Oid a", "git grep -O opens the matches in a program"),
                Arguments.of("git grep -iOid a", "git grep -O opens the matches in a program"),
                Arguments.of("git apply --unsafe-paths p.patch", "git option --unsafe-paths changes"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("holes")
    void eachHoleIsRefusedBeforeAnythingRuns(String command, String why) throws Exception {
        ToolResult r = onHost(command.replace("OUTSIDE", outside.toString()));
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).contains(why).contains("Nothing was run").doesNotContain("top secret");
        try (var files = Files.list(root)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("a.txt");
        }
    }

    @Test
    void aSymbolicLinkLeavingTheWorkspaceIsJudgedByWhereItLeads() throws Exception {
        Files.createSymbolicLink(root.resolve("link"), outside);
        Files.createSymbolicLink(root.resolve("secret"), outside.resolve("SECRET"));
        for (String command : List.of("ls link/", "cat link/SECRET", "cat secret", "grep -r top link", "grep -fsecret a.txt",
                "grep --file=secret a.txt")) {
            ToolResult r = onHost(command);
            assertThat(r.content()).as(command).contains("leads outside the workspace through a symbolic link")
                    .doesNotContain("top secret");
        }
        assertThat(onHost("cat a.txt").content()).isEqualTo("exit code 0\na");
    }

    @Test
    void anArgumentThatLooksLikeAUrlIsStillJudgedAsAPath() throws Exception {
        // "x:" is a directory name like any other: x://../../outside resolves through it, so it is a path to check.
        Files.createDirectories(root.resolve("x:"));
        for (String command : List.of("cat x://../../outside/SECRET", "grep --file=x://../../outside/SECRET a.txt")) {
            ToolResult r = onHost(command);
            assertThat(r.status()).as(command + ": " + r.content()).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(r.content()).as(command).contains("outside the workspace").doesNotContain("top secret");
        }
    }

    @Test
    void gitApplyWritesASymbolicLinkAsAPlainFile() throws Exception {
        Files.writeString(root.resolve("p.patch"), """
                diff --git a/link b/link
                new file mode 120000
                index 0000000..1111111
                --- /dev/null
                +++ b/link
                @@ -0,0 +1 @@
                +%s
                \\ No newline at end of file
                """.formatted(outside.resolve("SECRET")));
        assertThat(onHost("git init -q").content()).startsWith("exit code 0");
        assertThat(onHost("git apply p.patch").content()).startsWith("exit code 0");
        assertThat(root.resolve("link")).isRegularFile().isNotEqualTo(outside.resolve("SECRET"));
        assertThat(Files.isSymbolicLink(root.resolve("link"))).isFalse();
        assertThat(onHost("cat link").content()).doesNotContain("top secret");
    }

    @Test
    void aGitfilePointingAtAnotherRepositoryIsRefused() throws Exception {
        Path gd = root.resolve("gd");
        assertThat(onHost("git init -q").content()).startsWith("exit code 0");
        Files.move(root.resolve(".git"), gd);
        Files.writeString(root.resolve(".git"), "gitdir: " + gd + "\n");
        // What the agent could then write with the file tools: gd is not hidden.
        Files.writeString(gd.resolve("config"), "[filter \"x\"]\n\tclean = touch " + outside.resolve("PWNED") + "\n",
                java.nio.file.StandardOpenOption.APPEND);
        Files.writeString(gd.resolve("info/attributes"), "* filter=x\n");
        ToolResult r = onHost("git add a.txt");
        assertThat(r.content()).contains("The argument '.git' is refused").contains("gitfile");
        assertThat(outside.resolve("PWNED")).doesNotExist();
        Files.createDirectories(root.resolve("sub"));
        assertThat(onHost("git status", "sub").content()).as("from a subdirectory too").contains("gitfile");
    }

    @Test
    void aDirectoryPosingAsABareRepositoryIsNotUsed() throws Exception {
        Path evil = root.resolve("evil");
        Files.createDirectories(evil.resolve("objects"));
        Files.createDirectories(evil.resolve("refs"));
        Files.createDirectories(evil.resolve("info"));
        Files.writeString(evil.resolve("HEAD"), "ref: refs/heads/main\n");
        Files.writeString(evil.resolve("config"), "[core]\n\tbare = false\n\tworktree = " + root + "\n[filter \"x\"]\n\tclean = touch "
                + outside.resolve("PWNED") + "\n");
        Files.writeString(evil.resolve("info/attributes"), "* filter=x\n");
        ToolResult r = onHost("git add " + root.resolve("a.txt"), "evil");
        assertThat(r.content()).contains("cannot use bare repository");
        assertThat(outside.resolve("PWNED")).doesNotExist();
    }

    @Test
    void ordinaryCommandsStillRunOnTheHost() {
        assertThat(onHost("grep -c a a.txt").content()).isEqualTo("exit code 0\n1\n");
        assertThat(onHost("grep --regexp=a -r .").content()).contains("a.txt:a");
        assertThat(onHost("git init -q").content()).startsWith("exit code 0");
        assertThat(onHost("git --no-pager log --oneline").content()).startsWith("exit code 128");
        assertThat(onHost("git status --short").content()).contains("?? a.txt");
        assertThat(onHost("env").content()).contains("PATH=");
    }
}
