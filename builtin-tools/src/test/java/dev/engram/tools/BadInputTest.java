package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MigratedSqlite;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Absurd input through the real pipeline: each row is a tool, its arguments and the sentence the
 * model must get back. Every row checks that the result is an error written for the model (not an
 * internal error) and that nothing changed: not the memory's change log, not the workspace. Add a
 * row to cover a new case.
 */
class BadInputTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static OnnxEmbedder embedder;

    @TempDir
    Path dir;

    private MemoryStore store;
    private MemorySearch search;
    private ToolExecutor tools;
    private Path workspace;

    @BeforeAll
    static void model() {
        embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(1).build();
    }

    @AfterAll
    static void closeModel() {
        embedder.close();
    }

    @BeforeEach
    void setUp() throws IOException {
        store = MemoryStore.sqlite(MigratedSqlite.at(dir.resolve("memory.db")));
        search = LuceneMemorySearch.builder(store, embedder).backgroundInterval(Duration.ZERO).build();
        workspace = Files.createDirectories(dir.resolve("work"));
        Files.writeString(workspace.resolve("notes.md"), "keep me");
        tools = ToolExecutor.builder(ToolRegistry.create()
                        .registerAll(BuiltinTools.memory(store, search, PermissionBroker.denyAll()))
                        .registerAll(BuiltinTools.notes(store, search))
                        .registerAll(BuiltinTools.files(Workspace.of(workspace))))
                .approvalMode(ApprovalMode.YOLO).build();
        store.blocks().create(ANA, NewBlock.builder("human").value("Ana").limit(100).build());
        store.archival().insert(ANA, NewArchivalEntry.labelled("trip", "Lisbon in May", List.of()));
    }

    @AfterEach
    void tearDown() {
        search.close();
        store.close();
    }

    private ToolResult call(String tool, String args) {
        return tools.execute(ToolCall.of(tool, args), ToolContext.builder().userId("ana").agentId("helper").build());
    }

    static Stream<Arguments> badInput() {
        String lone = "\\ud800";
        return Stream.of(
                Arguments.of("search", "{\"query\":\"trip\",\"start_time\":\"+1000000000-01-01T00:00:00Z\"}",
                        "start_time must lie between the years 1 and 9999, got \"+1000000000-01-01T00:00:00Z\"."),
                Arguments.of("search", "{\"query\":\"trip\",\"end_time\":\"yesterday\"}",
                        "end_time must be an ISO-8601 instant such as 2026-05-01T00:00:00Z, got \"yesterday\"."),
                Arguments.of("file_write", "{\"path\":\"" + "x".repeat(5_000) + "\",\"content\":\"a\"}",
                        "path is 5000 characters long; the most is 4096."),
                Arguments.of("file_write", "{\"path\":\"" + "a/".repeat(300) + "f\",\"content\":\"a\"}",
                        "path has 301 levels; the most is 256."),
                Arguments.of("file_read", "{\"path\":\"" + "n".repeat(300) + "\"}",
                        "a name in the path is 300 bytes long ('nnnnnnnnnnnnnnnnnnnn...'); a file or directory name may be at most 255 bytes."),
                Arguments.of("file_write", "{\"path\":\"" + "a/".repeat(3_000) + "f\",\"content\":\"a\"}",
                        "path is 6001 characters long; the most is 4096."),
                Arguments.of("block", "{\"operation\":\"append\",\"label\":\"human\",\"text\":\"tea " + lone + "\"}",
                        "text contains an unpaired UTF-16 surrogate (U+D800 at index 4); send valid Unicode text"),
                Arguments.of("block", "{\"operation\":\"replace\",\"label\":\"human\",\"old_text\":\"Ana\",\"new_text\":\"" + lone + "\"}",
                        "value contains an unpaired UTF-16 surrogate (U+D800 at index 0); send valid Unicode text"),
                Arguments.of("recall", "{\"operation\":\"insert\",\"label\":\"x\",\"content\":\"a" + lone + "\"}",
                        "archival content contains an unpaired UTF-16 surrogate (U+D800 at index 1); send valid Unicode text"),
                Arguments.of("recall", "{\"operation\":\"append\",\"label\":\"trip\",\"content\":\"\"}",
                        "content is empty; give the text to add."),
                Arguments.of("memory_save", "{\"content\":\"" + lone + "\"}",
                        "note content contains an unpaired UTF-16 surrogate (U+D800 at index 0); send valid Unicode text"));
    }

    @ParameterizedTest(name = "{0} {2}")
    @MethodSource("badInput")
    void isAnErrorForTheModelAndChangesNothing(String tool, String args, String message) throws IOException {
        long seq = store.changes().lastSeq();
        List<Path> filesBefore;
        try (Stream<Path> files = Files.walk(workspace)) {
            filesBefore = files.toList();
        }
        ToolResult r = call(tool, args);
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).isEqualTo(message);
        assertThat(store.changes().lastSeq()).as("the change log").isEqualTo(seq);
        try (Stream<Path> files = Files.walk(workspace)) {
            assertThat(files.toList()).as("the workspace").isEqualTo(filesBefore);
        }
        assertThat(Files.readString(workspace.resolve("notes.md"))).isEqualTo("keep me");
    }

    @Test
    void aBlockLimitCountsCharactersNotUtf16Units() {
        String emoji = "\uD83C\uDF75".repeat(60); // 60 cups of tea: 60 code points, 120 UTF-16 units
        ToolResult r = call("block", "{\"operation\":\"replace\",\"label\":\"human\",\"old_text\":\"Ana\",\"new_text\":\"" + emoji + "\"}");
        assertThat(r.content()).isEqualTo("Replaced text in block 'human'; it now holds 60/100 characters.");
        assertThat(store.blocks().get(ANA, "human").orElseThrow().size()).isEqualTo(60);
    }
}
