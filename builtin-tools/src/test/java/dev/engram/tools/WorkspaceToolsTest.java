package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ApprovalRequest;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

class WorkspaceToolsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    private Path root;
    private Path outside;
    private ToolRegistry registry;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(tmp.resolve("ws"));
        outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "top secret");
        Files.writeString(root.resolve("notes.md"), "# Notes\nbuy milk\ncall Ana\n");
        registry = ToolRegistry.create().registerAll(BuiltinTools.files(Workspace.of(root)));
    }

    private ToolResult call(String tool, Object... keyValues) {
        java.util.Map<String, Object> args = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            args.put((String) keyValues[i], keyValues[i + 1]);
        }
        return ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build()
                .execute(ToolCall.of(tool, JSON.writeValueAsString(args)), ToolContext.empty());
    }

    @Test
    void aRunawayPatternStopsUsingTheProcessorWhenTheSearchTimesOut() throws Exception {
        Files.writeString(root.resolve("trap.txt"), "a".repeat(40) + "!\n");
        DynamicTool search = BuiltinTools.files(Workspace.of(root)).stream().filter(t -> t.name().equals("file_search"))
                .findFirst().orElseThrow().withTimeout(java.time.Duration.ofMillis(300));
        ToolResult r = ToolExecutor.builder(ToolRegistry.create().register(search)).approvalMode(ApprovalMode.YOLO).build()
                .execute(ToolCall.of("file_search", "{\"pattern\": \"((a+)+)+x\", \"regex\": true}"), ToolContext.empty());
        assertThat(r.status()).isEqualTo(ToolStatus.TIMED_OUT);
        // Without interruptible matching the worker would keep one core busy for minutes: measure the
        // process's CPU time over the next second, after a moment for the interrupt to land.
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        Thread.sleep(200);
        long cpuBefore = os.getProcessCpuTime();
        Thread.sleep(1_000);
        long cpuNanos = os.getProcessCpuTime() - cpuBefore;
        assertThat(cpuNanos).as("CPU nanoseconds used in the second after the timeout").isLessThan(600_000_000L);
    }

    @ParameterizedTest
    @ValueSource(strings = {"../outside/secret.txt", "sub/../../outside/secret.txt", "/etc/passwd", "..", "notes\u202e.md",
            "notes.md\u0000.txt", "\u200bnotes.md"})
    void escapesAndOddCharactersAreRejectedAndNothingOutsideIsTouched(String path) throws Exception {
        for (String tool : List.of("file_read", "file_delete", "file_list")) {
            ToolResult r = call(tool, "path", path);
            assertThat(r.status()).as(tool + " " + path).isIn(ToolStatus.TOOL_ERROR, ToolStatus.INVALID_ARGUMENTS);
            assertThat(r.content()).doesNotContain("top secret", "root:");
        }
        ToolResult write = call("file_write", "path", path, "content", "pwned");
        assertThat(write.isError()).isTrue();
        assertThat(Files.readString(outside.resolve("secret.txt"))).isEqualTo("top secret");
        try (var files = Files.list(outside)) {
            assertThat(files).hasSize(1);
        }
    }

    @Test
    void symlinksThatLeaveTheWorkspaceAreRejected() throws Exception {
        Files.createSymbolicLink(root.resolve("link.txt"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("linkdir"), outside);
        Files.createSymbolicLink(root.resolve("dangling"), outside.resolve("new.txt"));
        assertThat(call("file_read", "path", "link.txt").content()).contains("leads outside the workspace");
        assertThat(call("file_read", "path", "linkdir/secret.txt").content()).contains("leads outside the workspace");
        assertThat(call("file_write", "path", "linkdir/new.txt", "content", "x").content()).contains("leads outside");
        assertThat(call("file_write", "path", "dangling", "content", "x").content()).contains("leads outside");
        assertThat(call("file_delete", "path", "linkdir/secret.txt").isError()).isTrue();
        assertThat(outside.resolve("new.txt")).doesNotExist();
        assertThat(outside.resolve("secret.txt")).exists();
        Files.createSymbolicLink(root.resolve("inside-link.md"), root.resolve("notes.md"));
        assertThat(call("file_read", "path", "inside-link.md").content()).contains("buy milk");
    }

    @Test
    void readReturnsNumberedLinesAndLargeFilesInParts() throws Exception {
        assertThat(call("file_read", "path", "notes.md").content())
                .isEqualTo("notes.md (3 lines; showing 1-3)\n     1\t# Notes\n     2\tbuy milk\n     3\tcall Ana\n");
        StringBuilder big = new StringBuilder();
        for (int i = 1; i <= 1_000; i++) {
            big.append("line ").append(i).append('\n');
        }
        Files.writeString(root.resolve("big.txt"), big);
        String first = call("file_read", "path", "big.txt").content();
        assertThat(first).startsWith("big.txt (1000 lines; showing 1-400)")
                .endsWith("... 600 more lines. Call file_read with start_line=401 to continue.\n");
        assertThat(call("file_read", "path", "big.txt", "start_line", 990).content()).startsWith("big.txt (1000 lines; showing 990-1000)")
                .contains("  1000\tline 1000");
        assertThat(call("file_read", "path", "big.txt", "start_line", 2000).content()).isEqualTo("start_line must be between 1 and 1000, got 2000.");
        Files.write(root.resolve("image.bin"), new byte[] {1, 0, 2, 3});
        assertThat(call("file_read", "path", "image.bin").content()).contains("looks like a binary file");
        assertThat(call("file_read", "path", "missing.txt").content()).isEqualTo("There is no file 'missing.txt'.");
    }

    @Test
    void listShowsDirectoriesAndCapsLongListings() throws Exception {
        Files.createDirectories(root.resolve("docs/deep"));
        Files.writeString(root.resolve("docs/a.md"), "a");
        Files.writeString(root.resolve("docs/deep/b.md"), "b");
        String notesSize = FileTools.size(root.resolve("notes.md"));
        assertThat(call("file_list").content()).isEqualTo("docs/\nnotes.md  " + notesSize);
        assertThat(call("file_list", "recursive", true, "glob", "**.md").content())
                .isEqualTo("docs/a.md  1 B\ndocs/deep/b.md  1 B\nnotes.md  " + notesSize);
        Path many = Files.createDirectories(root.resolve("many"));
        for (int i = 0; i < 1_100; i++) {
            Files.writeString(many.resolve(String.format("f%04d.txt", i)), "");
        }
        String listing = call("file_list", "path", "many").content();
        assertThat(listing.lines().count()).isEqualTo(501);
        assertThat(listing).endsWith("... 600 more (1100 entries in all); narrow it with path or glob.");
    }

    @Test
    void searchRespectsGitignoreAndCapsManyMatches() throws Exception {
        Files.writeString(root.resolve(".gitignore"), "build/\n*.log\n!keep.log\n");
        Files.createDirectories(root.resolve("build"));
        Files.createDirectories(root.resolve("src"));
        Files.writeString(root.resolve("build/out.txt"), "needle in build");
        Files.writeString(root.resolve("app.log"), "needle in log");
        Files.writeString(root.resolve("keep.log"), "needle kept");
        Files.writeString(root.resolve("src/Main.java"), "class Main { /* NEEDLE */ }");
        Files.writeString(root.resolve("src/.gitignore"), "generated.java\n");
        Files.writeString(root.resolve("src/generated.java"), "needle generated");
        assertThat(call("file_search", "pattern", "needle").content()).isEqualTo("keep.log:1: needle kept\nsrc/Main.java:1: class Main { /* NEEDLE */ }");
        assertThat(call("file_search", "pattern", "needle", "case_sensitive", true).content()).isEqualTo("keep.log:1: needle kept");
        assertThat(call("file_search", "pattern", "N[E]+DLE", "regex", true, "case_sensitive", true).content())
                .isEqualTo("src/Main.java:1: class Main { /* NEEDLE */ }");
        assertThat(call("file_search", "pattern", "(unclosed", "regex", true).content())
                .startsWith("pattern is not a valid regular expression");
        StringBuilder hay = new StringBuilder();
        for (int i = 0; i < 150; i++) {
            hay.append("hay needle ").append(i).append('\n');
        }
        Files.writeString(root.resolve("src/hay.txt"), hay);
        String many = call("file_search", "pattern", "hay needle", "glob", "src/*.txt").content();
        assertThat(many.lines().count()).isEqualTo(51);
        assertThat(many).endsWith("... 100 more matches (150 in all); narrow it with path, glob or a longer pattern.");
    }

    @Test
    void writeEditDelete() throws Exception {
        assertThat(call("file_write", "path", "new/dir/todo.md", "content", "- a\n- b\n").content())
                .isEqualTo("Wrote 8 bytes to new/dir/todo.md.");
        assertThat(root.resolve("new/dir/todo.md")).hasContent("- a\n- b\n");
        ToolResult edit = call("file_edit", "path", "new/dir/todo.md", "old_text", "- b", "new_text", "- c");
        assertThat(edit.content()).isEqualTo("--- a/new/dir/todo.md\n+++ b/new/dir/todo.md\n@@ -1,3 +1,3 @@\n - a\n-- b\n+- c\n ");
        assertThat(root.resolve("new/dir/todo.md")).hasContent("- a\n- c\n");
        assertThat(call("file_edit", "path", "new/dir/todo.md", "old_text", "- z", "new_text", "x").content())
                .startsWith("old_text was not found in new/dir/todo.md. Closest lines:");
        assertThat(call("file_edit", "path", "new/dir/todo.md", "old_text", "- ", "new_text", "x").content())
                .contains("occurs more than once");
        assertThat(call("file_delete", "path", "new/dir").content()).contains("is a directory that is not empty");
        assertThat(call("file_delete", "path", "new/dir/todo.md").content()).isEqualTo("Deleted new/dir/todo.md.");
        assertThat(call("file_delete", "path", ".").content()).isEqualTo("The workspace root cannot be deleted.");
    }

    @Test
    void listAndReadManyFilesSkipWhatGitIgnores() throws Exception {
        Files.writeString(root.resolve(".gitignore"), "build/\n*.log\n");
        Files.createDirectories(root.resolve("build"));
        Files.writeString(root.resolve("build/out.txt"), "generated");
        Files.writeString(root.resolve("debug.log"), "noise");
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/a.md"), "Alpha\n");
        Files.writeString(root.resolve("docs/b.md"), "Beta\n");
        Files.write(root.resolve("docs/c.md"), new byte[] {0, 1, 2});
        String listing = call("file_list", "recursive", true).content();
        assertThat(listing).contains("docs/a.md  6 B", ".gitignore").doesNotContain("build", "debug.log");
        String read = call("read_many_files", "glob", "docs/*.md").content();
        assertThat(read).isEqualTo("==> docs/a.md <==\nAlpha\n\n==> docs/b.md <==\nBeta\n\nSkipped binary files: docs/c.md.");
        assertThat(call("read_many_files", "glob", "**.log").content()).isEqualTo("No files match '**.log'.");
        assertThat(call("read_many_files", "glob", " ").content()).contains("glob is empty");
        assertThat(call("read_many_files", "glob", "*.md", "path", "nope").isError()).isTrue();
    }

    @Test
    void readManyFilesStaysWithinItsBudgetAndNamesWhatDidNotFit() throws Exception {
        Path many = Files.createDirectories(root.resolve("many"));
        for (int i = 0; i < 60; i++) {
            Files.writeString(many.resolve(String.format("f%02d.txt", i)), "x".repeat(500));
        }
        String read = call("read_many_files", "glob", "*.txt", "path", "many").content();
        assertThat(read.length()).isLessThan(ReadManyFilesTool.MAX_CHARS + 2_000);
        assertThat(read).contains("==> many/f00.txt <==").contains("Not read, over the budget").contains("many/f59.txt");
    }

    @Test
    void deletingAFileAsksInAutoModeShowsWhatAndASessionApprovalCoversOnlyThatPath() throws Exception {
        Files.writeString(root.resolve("a.txt"), "a");
        Files.writeString(root.resolve("b.txt"), "b");
        List<ApprovalRequest> asked = new ArrayList<>();
        ToolContext ctx = ToolContext.builder().sessionId("s").approvalHandler(r -> {
            asked.add(r);
            return CompletableFuture.completedFuture(ApprovalDecision.approveForSession());
        }).build();
        ToolExecutor auto = ToolExecutor.builder(registry).approvalMode(ApprovalMode.AUTO).build();
        assertThat(auto.execute(ToolCall.of("file_delete", "{\"path\":\"a.txt\"}"), ctx).content()).isEqualTo("Deleted a.txt.");
        assertThat(asked).singleElement().satisfies(r -> assertThat(r.preview()).contains("delete a.txt (1 B)"));
        Files.writeString(root.resolve("a.txt"), "again");
        auto.execute(ToolCall.of("file_delete", "{\"path\":\"a.txt\"}"), ctx);
        assertThat(asked).hasSize(1);
        auto.execute(ToolCall.of("file_delete", "{\"path\":\"b.txt\"}"), ctx);
        assertThat(asked).hasSize(2);
        assertThat(root.resolve("b.txt")).doesNotExist();
    }

    @Test
    void theApprovalPromptShowsTheDiff() throws Exception {
        List<ApprovalRequest> asked = new ArrayList<>();
        ToolContext ctx = ToolContext.builder().approvalHandler(r -> {
            asked.add(r);
            return CompletableFuture.completedFuture(ApprovalDecision.deny("not now"));
        }).build();
        ToolResult r = ToolExecutor.builder(registry).approvalMode(ApprovalMode.ASK).build().execute(
                ToolCall.of("file_edit", "{\"path\":\"notes.md\",\"old_text\":\"buy milk\",\"new_text\":\"buy oat milk\"}"), ctx);
        assertThat(r.status()).isEqualTo(ToolStatus.APPROVAL_DENIED);
        assertThat(asked.get(0).preview().orElseThrow()).contains("-buy milk\n+buy oat milk");
        assertThat(root.resolve("notes.md")).hasContent("# Notes\nbuy milk\ncall Ana\n");
    }

    @Test
    void writingToolsOnlySeeTheWritableRoots() throws Exception {
        Files.createDirectories(root.resolve("scratch"));
        ToolRegistry limited = ToolRegistry.create().registerAll(BuiltinTools.files(Workspace.builder(root).writable("scratch").build()));
        ToolExecutor ex = ToolExecutor.builder(limited).approvalMode(ApprovalMode.YOLO).build();
        assertThat(ex.execute(ToolCall.of("file_write", "{\"path\":\"notes.md\",\"content\":\"x\"}"), ToolContext.empty()).content())
                .isEqualTo("'notes.md' is in a read-only part of the workspace; writable: [scratch].");
        assertThat(ex.execute(ToolCall.of("file_write", "{\"path\":\"scratch/a.txt\",\"content\":\"x\"}"), ToolContext.empty()).status())
                .isEqualTo(ToolStatus.SUCCESS);
        assertThat(ex.execute(ToolCall.of("file_read", "{\"path\":\"notes.md\"}"), ToolContext.empty()).status())
                .isEqualTo(ToolStatus.SUCCESS);
        ToolRegistry readOnly = ToolRegistry.create().registerAll(BuiltinTools.files(Workspace.builder(root).readOnly().build()));
        assertThat(ToolExecutor.builder(readOnly).approvalMode(ApprovalMode.YOLO).build()
                .execute(ToolCall.of("file_delete", "{\"path\":\"notes.md\"}"), ToolContext.empty()).content())
                .isEqualTo("The workspace is read-only; 'notes.md' cannot be changed.");
        assertThat(root.resolve("notes.md")).exists();
        assertThatThrownBy(() -> Workspace.of(root.resolve("notes.md"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("is not a directory");
    }
}
