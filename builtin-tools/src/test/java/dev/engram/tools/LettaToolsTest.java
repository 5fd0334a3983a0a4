package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.memory.Block;
import dev.engram.memory.BlockVersion;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MigratedSqlite;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Letta's memory tools (and the block operations they brought to {@code block}) through the real
 * pipeline over real storage: each succeeds, respects permissions and limits, and answers a malformed
 * call with an error that changes nothing.
 */
class LettaToolsTest {
    private static OnnxEmbedder embedder;
    private static final Scope ANA = Scope.of("ana", "helper");

    @TempDir
    Path dir;

    private MemoryStore store;
    private MemorySearch search;
    private ToolRegistry registry;
    private final List<ConsentRequest> consents = new ArrayList<>();
    private final AtomicBoolean consent = new AtomicBoolean(true);

    @BeforeAll
    static void model() {
        embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(2).build();
    }

    @AfterAll
    static void closeModel() {
        embedder.close();
    }

    @BeforeEach
    void setUp() {
        store = MemoryStore.sqlite(MigratedSqlite.at(dir.resolve("memory.db")));
        search = LuceneMemorySearch.builder(store, embedder).backgroundInterval(Duration.ZERO).build();
        PermissionBroker broker = request -> {
            consents.add(request);
            return CompletableFuture.completedFuture(consent.get());
        };
        BuiltinTools.MemoryToolOptions options = BuiltinTools.MemoryToolOptions.defaults().withConsentTimeout(Duration.ofMillis(300));
        registry = ToolRegistry.create().registerAll(BuiltinTools.memory(store, search, broker, options))
                .registerAll(BuiltinTools.letta(store, search, broker, options));
    }

    @AfterEach
    void tearDown() {
        search.close();
        store.close();
    }

    private ToolResult call(String tool, String args) {
        ToolContext ctx = ToolContext.builder().userId(ANA.userId()).agentId(ANA.agentId()).sessionId("s1").build();
        return ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build().execute(ToolCall.of(tool, args), ctx);
    }

    private ToolResult ok(String tool, String args) {
        ToolResult r = call(tool, args);
        assertThat(r.status()).as("%s %s: %s", tool, args, r.content()).isEqualTo(ToolStatus.SUCCESS);
        return r;
    }

    /** Calls, expects an error containing {@code message}, and checks that the blocks did not change. */
    private ToolResult refused(String tool, String args, ToolStatus status, String message) {
        List<Block> before = store.blocks().list(ANA);
        ToolResult r = call(tool, args);
        assertThat(r.status()).as("%s %s: %s", tool, args, r.content()).isEqualTo(status);
        assertThat(r.content()).contains(message);
        assertThat(store.blocks().list(ANA)).as("blocks after a refused %s", tool).isEqualTo(before);
        return r;
    }

    private Block block(String label, String value, MemoryPermission permission, int limit) {
        return store.blocks().create(ANA, NewBlock.builder(label).value(value).limit(limit).permission(permission).build());
    }

    private String value(String label) {
        return store.blocks().get(ANA, label).orElseThrow().value();
    }

    @Nested
    class CoreMemory {
        @Test
        void appendAndReplaceAllOccurrences() {
            block("human", "Name: Ana", MemoryPermission.READ_WRITE, 200);
            ok("core_memory_append", "{\"label\": \"human\", \"content\": \"Likes tea. Likes tea.\"}");
            assertThat(value("human")).isEqualTo("Name: Ana\nLikes tea. Likes tea.");
            assertThat(ok("core_memory_replace", "{\"label\": \"human\", \"old_content\": \"tea\", \"new_content\": \"coffee\"}")
                    .content()).contains("now holds");
            assertThat(value("human")).isEqualTo("Name: Ana\nLikes coffee. Likes coffee.");
        }

        @Test
        void permissionsLimitsAndBadCallsChangeNothing() {
            block("rules", "Be kind.", MemoryPermission.READ_ONLY, 200);
            block("tiny", "1234567890", MemoryPermission.READ_WRITE, 12);
            refused("core_memory_append", "{\"label\": \"rules\", \"content\": \"x\"}", ToolStatus.TOOL_ERROR,
                    "permission read_only, which does not allow append");
            refused("core_memory_append", "{\"label\": \"tiny\", \"content\": \"too long\"}", ToolStatus.TOOL_ERROR, "over the limit");
            refused("core_memory_replace", "{\"label\": \"tiny\", \"old_content\": \"abc\", \"new_content\": \"x\"}",
                    ToolStatus.TOOL_ERROR, "old_content was not found in block 'tiny'");
            refused("core_memory_replace", "{\"label\": \"nope\", \"old_content\": \"a\", \"new_content\": \"b\"}",
                    ToolStatus.TOOL_ERROR, "There is no block labelled 'nope'");
            refused("core_memory_append", "{\"label\": \"tiny\"}", ToolStatus.INVALID_ARGUMENTS, "content");
        }

        @Test
        void aHumanBlockAsksForConsent() {
            block("human", "Name: Ana", MemoryPermission.HUMAN, 200);
            consent.set(false);
            refused("core_memory_append", "{\"label\": \"human\", \"content\": \"secret\"}", ToolStatus.TOOL_ERROR, "consent");
            consent.set(true);
            ok("core_memory_append", "{\"label\": \"human\", \"content\": \"Likes tea\"}");
            assertThat(consents).hasSize(2);
        }
    }

    @Nested
    class SleeptimeCoreTools {
        @Test
        void insertAtALineReplaceOnceAndRethink() {
            block("plan", "one\ntwo\nthree", MemoryPermission.READ_WRITE, 200);
            ok("memory_insert", "{\"label\": \"plan\", \"new_str\": \"zero\", \"insert_line\": 0}");
            ok("memory_insert", "{\"label\": \"plan\", \"new_str\": \"one and a half\", \"insert_line\": 2}");
            ok("memory_insert", "{\"label\": \"plan\", \"new_str\": \"four\"}");
            assertThat(value("plan")).isEqualTo("zero\none\none and a half\ntwo\nthree\nfour");
            ok("memory_replace", "{\"label\": \"plan\", \"old_str\": \"one and a half\", \"new_str\": \"1.5\"}");
            assertThat(value("plan")).contains("\n1.5\n");
            ok("memory_rethink", "{\"label\": \"plan\", \"new_memory\": \"A fresh plan.\"}");
            assertThat(value("plan")).isEqualTo("A fresh plan.");
            assertThat(ok("memory_rethink", "{\"label\": \"ideas\", \"new_memory\": \"Brand new.\"}").content()).contains("Created");
            assertThat(store.blocks().get(ANA, "ideas").orElseThrow().permission()).isEqualTo(MemoryPermission.ADMIN);
            assertThat(ok("memory_finish_edits", "{}").content()).isEqualTo("Finished editing memory.");
        }

        @Test
        void errorsSayWhatIsWrongAndChangeNothing() {
            block("plan", "a\nb\na", MemoryPermission.READ_WRITE, 10);
            block("fixed", "x", MemoryPermission.APPEND, 100);
            refused("memory_insert", "{\"label\": \"plan\", \"new_str\": \"c\", \"insert_line\": 9}", ToolStatus.TOOL_ERROR,
                    "insert_line 9 is outside the block, which has 3 lines");
            refused("memory_replace", "{\"label\": \"plan\", \"old_str\": \"a\", \"new_str\": \"z\"}", ToolStatus.TOOL_ERROR,
                    "old_str occurs 2 times");
            refused("memory_rethink", "{\"label\": \"plan\", \"new_memory\": \"far too long for it\"}", ToolStatus.TOOL_ERROR,
                    "over the limit");
            refused("memory_rethink", "{\"label\": \"fixed\", \"new_memory\": \"y\"}", ToolStatus.TOOL_ERROR,
                    "permission append, which does not allow overwrite");
            refused("memory_insert", "{\"label\": \"plan\", \"new_str\": \"c\", \"insert_line\": \"top\"}",
                    ToolStatus.INVALID_ARGUMENTS, "insert_line");
        }
    }

    @Nested
    class OmniMemoryTool {
        @Test
        void createReplaceInsertRenameDelete() {
            ok("memory", "{\"command\": \"create\", \"path\": \"/memories/projects\", \"file_text\": \"Engram\", "
                    + "\"description\": \"What the user works on\"}");
            Block created = store.blocks().get(ANA, "projects").orElseThrow();
            assertThat(created.description()).isEqualTo("What the user works on");
            ok("memory", "{\"command\": \"str_replace\", \"path\": \"/memories/projects\", \"old_str\": \"Engram\", \"new_str\": \"Engram 2\"}");
            ok("memory", "{\"command\": \"insert\", \"path\": \"projects\", \"insert_line\": 0, \"insert_text\": \"Current:\"}");
            assertThat(value("projects")).isEqualTo("Current:\nEngram 2");
            ok("memory", "{\"command\": \"rename\", \"old_path\": \"/memories/projects\", \"new_path\": \"/memories/work\"}");
            assertThat(store.blocks().get(ANA, "projects")).isEmpty();
            assertThat(store.blocks().history(ANA, "work")).extracting(BlockVersion::operation).last().isEqualTo("rename from 'projects'");
            ok("memory", "{\"command\": \"delete\", \"path\": \"/memories/work\"}");
            assertThat(store.blocks().get(ANA, "work")).isEmpty();
        }

        @Test
        void deleteAndRenameFollowThePermissionRules() {
            block("human", "Name: Ana", MemoryPermission.READ_WRITE, 100);
            block("persona", "Helpful", MemoryPermission.READ_ONLY, 100);
            refused("memory", "{\"command\": \"delete\", \"path\": \"/memories/human\"}", ToolStatus.TOOL_ERROR,
                    "permission read_write, which does not allow delete");
            refused("memory", "{\"command\": \"rename\", \"old_path\": \"/memories/persona\", \"new_path\": \"/memories/me\"}",
                    ToolStatus.TOOL_ERROR, "permission read_only, which does not allow overwrite");
            refused("memory", "{\"command\": \"rename\", \"old_path\": \"/memories/human\", \"new_path\": \"/memories/persona\"}",
                    ToolStatus.TOOL_ERROR, "already has a block labelled 'persona'");
            refused("memory", "{\"command\": \"create\", \"path\": \"/memories/human\"}", ToolStatus.TOOL_ERROR, "already exists");
            refused("memory", "{\"command\": \"str_replace\", \"path\": \"/memories/human\"}", ToolStatus.TOOL_ERROR,
                    "The str_replace command needs old_str");
            refused("memory", "{\"command\": \"explode\", \"path\": \"/memories/human\"}", ToolStatus.INVALID_ARGUMENTS, "command");
            refused("memory", "{\"command\": \"delete\", \"path\": \"/memories/\"}", ToolStatus.TOOL_ERROR, "names no block");
        }

        @Test
        void aBlockSharedWithTheAgentIsNotItsToRenameOrDelete() {
            Scope coach = Scope.of("ana", "coach");
            store.blocks().create(coach, NewBlock.builder("team").value("Team facts").permission(MemoryPermission.ADMIN).build());
            store.blocks().share(coach, "team", "helper", MemoryPermission.ADMIN);
            refused("memory", "{\"command\": \"delete\", \"path\": \"team\"}", ToolStatus.TOOL_ERROR, "shared with you by agent 'coach'");
            refused("block", "{\"operation\": \"rename\", \"label\": \"team\", \"new_label\": \"mine\"}", ToolStatus.TOOL_ERROR,
                    "only its owner can rename it");
        }
    }

    @Nested
    class BlockToolOperations {
        @Test
        void createRewriteRenameDeleteOwnBlocks() {
            assertThat(ok("block", "{\"operation\": \"create\", \"label\": \"todo\", \"value\": \"buy milk\", \"limit\": 300}").content())
                    .contains("permission admin");
            ok("block", "{\"operation\": \"rewrite\", \"label\": \"todo\", \"value\": \"buy milk\\nbuy bread\"}");
            ok("block", "{\"operation\": \"rename\", \"label\": \"todo\", \"new_label\": \"shopping\"}");
            assertThat(value("shopping")).isEqualTo("buy milk\nbuy bread");
            assertThat(store.blocks().get(ANA, "shopping").orElseThrow().limit()).isEqualTo(300);
            ok("block", "{\"operation\": \"delete\", \"label\": \"shopping\"}");
            assertThat(store.blocks().list(ANA)).isEmpty();
        }

        @Test
        void aBlockWithAHugeLimitIsRefusedWithTheStoresMaximumAndNothingIsStored() {
            long seq = store.changes().lastSeq();
            refused("block", "{\"operation\": \"create\", \"label\": \"huge\", \"value\": \"x\", \"limit\": 20000000}",
                    ToolStatus.TOOL_ERROR, "Block 'huge' asks for a limit of 20000000 characters; this store allows at most "
                            + "1000000 per block (MemoryLimits). Nothing was stored: ask for a limit of at most 1000000.");
            assertThat(store.changes().lastSeq()).isEqualTo(seq);
        }

        @Test
        void rewriteAndDeleteAreRefusedWhereThePermissionSaysSo() {
            block("human", "Name: Ana", MemoryPermission.PARTNER, 100);
            consent.set(false);
            refused("block", "{\"operation\": \"rewrite\", \"label\": \"human\", \"value\": \"x\"}", ToolStatus.TOOL_ERROR,
                    "consent to overwrite was not given");
            refused("block", "{\"operation\": \"delete\", \"label\": \"human\"}", ToolStatus.TOOL_ERROR,
                    "permission partner, which does not allow delete");
            refused("block", "{\"operation\": \"create\", \"label\": \"big\", \"value\": \"abc\", \"limit\": 0}", ToolStatus.TOOL_ERROR,
                    "limit must be positive");
        }
    }

    @Nested
    class ArchivalAndConversations {
        @Test
        void insertAndSearchArchivalMemoryWithTags() {
            ok("archival_memory_insert", "{\"content\": \"The API redesign meeting is on Tuesday\", \"tags\": [\"meetings\", \"api\"]}");
            ok("archival_memory_insert", "{\"content\": \"Lunch meeting with Ben on Friday\", \"tags\": [\"meetings\"]}");
            ok("archival_memory_insert", "{\"content\": \"The API keys rotate monthly\", \"tags\": [\"api\"]}");
            assertThat(store.archival().count(ANA)).isEqualTo(3);
            String any = ok("archival_memory_search", "{\"query\": \"meeting\", \"tags\": [\"meetings\"]}").content();
            assertThat(any).contains("API redesign meeting", "Lunch meeting").doesNotContain("keys rotate");
            String all = ok("archival_memory_search", "{\"query\": \"meeting\", \"tags\": [\"meetings\", \"api\"], "
                    + "\"tag_match_mode\": \"all\"}").content();
            assertThat(all).contains("API redesign meeting").doesNotContain("Lunch");
            assertThat(ok("archival_memory_search", "{\"query\": \"keys\", \"top_k\": 1}").content()).contains("rotate monthly");
        }

        @Test
        void archivalErrorsAndPermission() {
            refused("archival_memory_insert", "{\"content\": \" \"}", ToolStatus.TOOL_ERROR, "content is empty");
            refused("archival_memory_search", "{\"query\": \"x\", \"top_k\": 500}", ToolStatus.TOOL_ERROR, "top_k must be between 1 and 50");
            refused("archival_memory_search", "{\"query\": \"x\", \"start_datetime\": \"yesterday\"}", ToolStatus.TOOL_ERROR,
                    "start_datetime must be an ISO-8601 instant");
            ToolRegistry readOnly = ToolRegistry.create().registerAll(BuiltinTools.letta(store, search, r -> CompletableFuture.completedFuture(true),
                    BuiltinTools.MemoryToolOptions.defaults().withArchivalPermission(MemoryPermission.READ_ONLY)));
            ToolResult r = ToolExecutor.builder(readOnly).approvalMode(ApprovalMode.YOLO).build().execute(ToolCall.of(
                    "archival_memory_insert", "{\"content\": \"x\"}"), ToolContext.builder().userId("ana").agentId("helper").build());
            assertThat(r.content()).contains("permission read_only, which does not allow adding");
            assertThat(store.archival().count(ANA)).isZero();
        }

        @Test
        void conversationSearchFindsOldMessagesWithRolesAndDates() {
            store.messages().append(ANA, NewMessage.user("s1", "I adopted a greyhound called Biscuit"));
            store.messages().append(ANA, NewMessage.assistant("s1", "Biscuit is a lovely name for a greyhound", List.of()));
            String both = ok("conversation_search", "{\"query\": \"greyhound Biscuit\"}").content();
            assertThat(both).contains("\"role\":\"user\"", "\"role\":\"assistant\"");
            String users = ok("conversation_search", "{\"query\": \"greyhound\", \"roles\": [\"user\"], \"start_date\": \"2020-01-01\"}")
                    .content();
            assertThat(users).contains("I adopted a greyhound").doesNotContain("lovely name");
            assertThat(ok("conversation_search", "{\"query\": \"greyhound\", \"end_date\": \"2020-01-01\"}").content()).isEqualTo("[]");
            refused("conversation_search", "{\"query\": \"x\", \"roles\": [\"narrator\"]}", ToolStatus.INVALID_ARGUMENTS, "roles");
        }
    }

    @Test
    void everyLettaToolIsOfferedUnderItsLettaName() {
        assertThat(BuiltinTools.letta(store, search, r -> CompletableFuture.completedFuture(true),
                BuiltinTools.MemoryToolOptions.defaults())).extracting(t -> t.name()).containsExactly("core_memory_append",
                "core_memory_replace", "memory_insert", "memory_replace", "memory_rethink", "memory_finish_edits", "memory",
                "archival_memory_insert", "archival_memory_search", "conversation_search");
    }
}
