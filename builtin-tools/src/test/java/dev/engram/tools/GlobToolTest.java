package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/** {@code glob}: files by pattern, newest first, .gitignore respected, capped, never outside the workspace. */
class GlobToolTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    private Path root;
    private ToolExecutor executor;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(tmp.resolve("ws"));
        Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(tmp.resolve("outside/Secret.java"), "class Secret {}");
        write("A.java", "2026-01-01T00:00:00Z");
        write("src/main/B.java", "2026-03-01T00:00:00Z");
        write("src/main/C.java", "2026-02-01T00:00:00Z");
        write("src/main/notes.md", "2026-04-01T00:00:00Z");
        write("build/Gen.java", "2026-05-01T00:00:00Z");
        write("src/main/Skipped.java", "2026-06-01T00:00:00Z");
        Files.writeString(root.resolve(".gitignore"), "build/\nSkipped.java\n");
        executor = ToolExecutor.builder(ToolRegistry.create().registerAll(BuiltinTools.files(Workspace.of(root))))
                .approvalMode(ApprovalMode.YOLO).build();
    }

    private void write(String path, String modified) throws Exception {
        Path file = root.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, path);
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse(modified)));
    }

    private ToolResult glob(String pattern, String... path) {
        Map<String, Object> args = new HashMap<>(Map.of("pattern", pattern));
        if (path.length > 0) {
            args.put("path", path[0]);
        }
        return executor.execute(ToolCall.of("glob", JSON.writeValueAsString(args)), ToolContext.empty());
    }

    @Test
    void matchingFilesComeNewestFirstWithoutWhatGitIgnoresAndTopLevelFilesMatchALeadingDoubleStar() {
        assertThat(glob("**/*.java").content()).isEqualTo("""
                3 files match '**/*.java', newest first:
                src/main/B.java
                src/main/C.java
                A.java""");
        assertThat(glob("*.md", "src/main").content()).isEqualTo("""
                1 file matches '*.md' under src/main, newest first:
                src/main/notes.md""");
        assertThat(glob("src/*/{B,C}.java").content()).contains("src/main/B.java\nsrc/main/C.java");
        assertThat(glob("**/*.py").content()).isEqualTo("No files match '**/*.py'.");
    }

    @Test
    void moreThanAHundredMatchesShowTheFirstHundredAndHowManyMore() throws Exception {
        for (int i = 0; i < 130; i++) {
            Files.writeString(root.resolve("many-" + i + ".txt"), "x");
        }
        String out = glob("many-*.txt").content();
        assertThat(out).startsWith("130 files match 'many-*.txt', newest first:\n")
                .endsWith("... and 30 more; narrow the pattern or give path.");
        assertThat(out.lines().filter(l -> l.startsWith("many-"))).hasSize(GlobTool.SHOWN);
    }

    @Test
    void patternsThatLeaveTheWorkspaceAreRefusedBeforeAnythingIsRead() {
        for (String pattern : new String[] {"/etc/*", "../outside/*.java", "src/../../outside/*", "~/.ssh/*", "", "C:/x"}) {
            ToolResult r = glob(pattern);
            assertThat(r.status()).as(pattern).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(r.content()).as(pattern).doesNotContain("Secret");
        }
        assertThat(glob("../outside/*.java").content()).contains("leads out of the directory");
        assertThat(glob("/etc/*").content()).contains("not relative to the workspace");
        ToolResult outside = glob("*.java", "../outside");
        assertThat(outside.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(outside.content()).doesNotContain("Secret.java");
        assertThat(glob("[unclosed").content()).contains("is not valid");
    }

    @Test
    void globIsReadOnly() {
        assertThat(BuiltinTools.files(Workspace.of(root))).filteredOn(t -> t.name().equals("glob")).singleElement()
                .satisfies(t -> assertThat(t.safetyTier()).isEqualTo(SafetyTier.READ_ONLY));
    }
}
