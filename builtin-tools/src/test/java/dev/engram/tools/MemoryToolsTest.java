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
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.MigratedSqlite;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Note;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The memory tools through the real pipeline, over a real SQLite store, a real index and the real MiniLM model. */
class MemoryToolsTest {
    private static OnnxEmbedder embedder;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private MemoryStore store;
    private MemorySearch search;
    private ToolRegistry registry;
    private final List<ConsentRequest> consents = new ArrayList<>();
    private final AtomicReference<Boolean> consentAnswer = new AtomicReference<>(true);
    private final List<OutgoingMessage> sent = new ArrayList<>();

    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope BEN = Scope.of("ben", "helper");

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
            Boolean answer = consentAnswer.get();
            return answer == null ? new CompletableFuture<>() : CompletableFuture.completedFuture(answer);
        };
        registry = ToolRegistry.create()
                .registerAll(BuiltinTools.memory(store, search, broker,
                        BuiltinTools.MemoryToolOptions.defaults().withConsentTimeout(Duration.ofMillis(300))))
                .registerAll(BuiltinTools.notes(store, search))
                .register(BuiltinTools.sendMessage(MessageRouter.to(sent::add)));
    }

    @AfterEach
    void tearDown() {
        search.close();
        store.close();
    }

    private ToolResult call(Scope scope, String tool, String args) {
        ToolContext ctx = ToolContext.builder().userId(scope.userId()).agentId(scope.agentId()).sessionId("s1").build();
        return ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build().execute(ToolCall.of(tool, args), ctx);
    }

    private Block block(String label, String value, MemoryPermission permission) {
        return store.blocks().create(ANA, NewBlock.builder(label).value(value).limit(100).permission(permission).build());
    }

    private String value(String label) {
        return store.blocks().get(ANA, label).orElseThrow().value();
    }

    @Nested
    class BlockOperations {
        @Test
        void concurrentAppendsToOneBlockAllSucceed() throws Exception {
            store.blocks().create(ANA, NewBlock.builder("log").limit(50_000).build());
            int threads = 6;
            int perThread = 20;
            List<java.util.concurrent.Future<ToolResult>> results = new ArrayList<>();
            try (java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads)) {
                for (int t = 0; t < threads; t++) {
                    for (int i = 0; i < perThread; i++) {
                        String text = "entry " + t + "-" + i;
                        results.add(pool.submit(() -> call(ANA, "block",
                                "{\"operation\":\"append\",\"label\":\"log\",\"text\":\"" + text + "\"}")));
                    }
                }
            }
            for (java.util.concurrent.Future<ToolResult> r : results) {
                assertThat(r.get().status()).as(r.get().content()).isEqualTo(ToolStatus.SUCCESS);
            }
            assertThat(value("log").split("\n")).hasSize(threads * perThread);
        }

        @Test
        void appendAddsALineAndReportsTheSize() {
            block("human", "Name: Ana", MemoryPermission.READ_WRITE);
            ToolResult r = call(ANA, "block", "{\"operation\":\"append\",\"label\":\"human\",\"text\":\"Likes tea\"}");
            assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
            assertThat(r.content()).isEqualTo("Appended to block 'human'; it now holds 19/100 characters.");
            assertThat(value("human")).isEqualTo("Name: Ana\nLikes tea");
            block("empty", "", MemoryPermission.READ_WRITE);
            call(ANA, "block", "{\"operation\":\"append\",\"label\":\"empty\",\"text\":\"first\"}");
            assertThat(value("empty")).isEqualTo("first");
        }

        @Test
        void appendBeyondTheLimitIsRefusedWithTheSizes() {
            block("human", "x".repeat(95), MemoryPermission.READ_WRITE);
            ToolResult r = call(ANA, "block", "{\"operation\":\"append\",\"label\":\"human\",\"text\":\"123456789\"}");
            assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(r.content()).contains("holds 95 of 100 characters").contains("5 over the limit");
            assertThat(value("human")).hasSize(95);
        }

        @Test
        void replaceNeedsAnExactUniqueMatchAndShowsTheClosestLines() {
            block("human", "Name: Ana\nLikes green tea\nLives in Porto\nLikes cats", MemoryPermission.READ_WRITE);
            ToolResult missing = call(ANA, "block", "{\"operation\":\"replace\",\"label\":\"human\",\"old_text\":\"Likes gren tea\",\"new_text\":\"x\"}");
            assertThat(missing.content()).startsWith("old_text was not found in block 'human'. Closest lines:\n  line 2: Likes green tea");
            ToolResult twice = call(ANA, "block", "{\"operation\":\"replace\",\"label\":\"human\",\"old_text\":\"Likes\",\"new_text\":\"x\"}");
            assertThat(twice.content()).isEqualTo("old_text occurs 2 times in block 'human' (lines 2 and 4); include more of the "
                    + "surrounding text so that it matches exactly once.");
            assertThat(value("human")).isEqualTo("Name: Ana\nLikes green tea\nLives in Porto\nLikes cats");
            ToolResult ok = call(ANA, "block", "{\"operation\":\"replace\",\"label\":\"human\",\"old_text\":\"Porto\",\"new_text\":\"Lisbon\"}");
            assertThat(ok.content()).isEqualTo("Replaced text in block 'human'; it now holds 52/100 characters.");
            assertThat(value("human")).contains("Lives in Lisbon");
        }

        @Test
        void readOnlyIsDeniedNamingThePermission() {
            block("persona", "I am helpful.", MemoryPermission.READ_ONLY);
            ToolResult r = call(ANA, "block", "{\"operation\":\"append\",\"label\":\"persona\",\"text\":\"I am evil.\"}");
            assertThat(r.content()).isEqualTo("Block 'persona' has permission read_only, which does not allow append. Nothing was changed.");
            assertThat(value("persona")).isEqualTo("I am helpful.");
            assertThat(call(ANA, "block", "{\"operation\":\"view\",\"label\":\"persona\"}").content())
                    .isEqualTo("Block 'persona' (core, permission read_only, 13/100 characters):\nI am helpful.");
        }

        @Test
        void appendPermissionAllowsAppendButNotReplace() {
            block("log", "day 1", MemoryPermission.APPEND);
            assertThat(call(ANA, "block", "{\"operation\":\"append\",\"label\":\"log\",\"text\":\"day 2\"}").status())
                    .isEqualTo(ToolStatus.SUCCESS);
            ToolResult r = call(ANA, "block", "{\"operation\":\"replace\",\"label\":\"log\",\"old_text\":\"day 1\",\"new_text\":\"\"}");
            assertThat(r.content()).isEqualTo("Block 'log' has permission append, which does not allow overwrite. Nothing was changed.");
            assertThat(value("log")).isEqualTo("day 1\nday 2");
        }

        @Test
        void partnerAndHumanBlocksAskTheBrokerWithOrigin() {
            block("human", "Ana", MemoryPermission.PARTNER);
            assertThat(call(ANA, "block", "{\"operation\":\"append\",\"label\":\"human\",\"text\":\"likes tea\"}").status())
                    .isEqualTo(ToolStatus.SUCCESS);
            assertThat(consents).singleElement().satisfies(c -> {
                assertThat(c.userId()).isEqualTo("ana");
                assertThat(c.agentId()).isEqualTo("helper");
                assertThat(c.channel()).isEqualTo("s1");
                assertThat(c.label()).isEqualTo("human");
                assertThat(c.permission()).isEqualTo(MemoryPermission.PARTNER);
                assertThat(c.change()).isEqualTo("likes tea");
            });
            consentAnswer.set(false);
            ToolResult denied = call(ANA, "block", "{\"operation\":\"append\",\"label\":\"human\",\"text\":\"hates tea\"}");
            assertThat(denied.content()).isEqualTo("Block 'human' has permission partner and consent to append was not given. "
                    + "Nothing was changed.");
            consentAnswer.set(null);
            block("secret", "s", MemoryPermission.HUMAN);
            ToolResult timedOut = call(ANA, "block", "{\"operation\":\"replace\",\"label\":\"secret\",\"old_text\":\"s\",\"new_text\":\"t\"}");
            assertThat(timedOut.content()).startsWith("Block 'secret' has permission human and needs consent to overwrite; none came");
            assertThat(value("human")).isEqualTo("Ana\nlikes tea");
            assertThat(value("secret")).isEqualTo("s");
        }

        @Test
        void archiveMovesAReadWriteBlockAndReadOnlyIsRefused() {
            block("project", "Engram launch plan", MemoryPermission.READ_ONLY);
            ToolResult denied = call(ANA, "block", "{\"operation\":\"archive\",\"label\":\"project\"}");
            assertThat(denied.content()).isEqualTo("Block 'project' has permission read_only, which does not allow overwrite "
                    + "(archiving takes its text out of your prompt). Nothing was changed.");
            assertThat(store.blocks().get(ANA, "project")).isPresent();
            block("trip", "Lisbon in May", MemoryPermission.READ_WRITE);
            ToolResult ok = call(ANA, "block", "{\"operation\":\"archive\",\"label\":\"trip\"}");
            assertThat(ok.content()).startsWith("Archived block 'trip' (13 characters) into archival memory as entry 'trip'");
            assertThat(store.blocks().get(ANA, "trip")).isEmpty();
            assertThat(store.archival().getByLabel(ANA, "trip").orElseThrow().content()).isEqualTo("Lisbon in May");
        }

        @Test
        void loadCopiesAndSwapDoesBothAtOnce() {
            store.archival().insert(ANA, NewArchivalEntry.labelled("trip", "Lisbon in May", List.of()));
            store.archival().insert(ANA, NewArchivalEntry.labelled("recipes", "Pasta: boil water", List.of()));
            ToolResult copy = call(ANA, "block", "{\"operation\":\"load\",\"label\":\"recipes\",\"as_label\":\"cooking\"}");
            assertThat(copy.content()).endsWith("; the archival entry is kept.");
            assertThat(store.archival().getByLabel(ANA, "recipes")).isPresent();
            ToolResult same = call(ANA, "block", "{\"operation\":\"load\",\"label\":\"trip\"}");
            assertThat(same.content()).isEqualTo("Loaded archival entry 'trip' into working block 'trip' (13/5000 characters); "
                    + "the archival entry is kept.");
            assertThat(store.archival().getByLabel(ANA, "trip")).isPresent();
            assertThat(call(ANA, "block", "{\"operation\":\"load\",\"label\":\"nope\"}").content())
                    .isEqualTo("There is no archival entry labelled 'nope'. Use search or recall to find it.");
            block("work", "Q3 report", MemoryPermission.READ_WRITE);
            ToolResult swap = call(ANA, "block", "{\"operation\":\"swap\",\"archive_label\":\"work\",\"load_label\":\"recipes\"}");
            assertThat(swap.content()).isEqualTo("Archived block 'work' and loaded 'recipes' in its place (17/5000 characters).");
            assertThat(store.archival().getByLabel(ANA, "recipes")).as("a swapped-in entry stays too").isPresent();
            assertThat(call(ANA, "block", "{\"operation\":\"list\"}").content()).contains("- cooking:", "- recipes:", "- trip:")
                    .doesNotContain("- work:");
        }

        @Test
        void unknownBlocksNameTheOnesThatExist() {
            block("human", "x", MemoryPermission.READ_WRITE);
            assertThat(call(ANA, "block", "{\"operation\":\"view\",\"label\":\"persona\"}").content())
                    .isEqualTo("There is no block labelled 'persona'. Existing blocks: human.");
        }
    }

    @Nested
    class RecallAndSearch {
        @Test
        void recallInsertsAppendsReadsAndDeleteNeedsAdmin() {
            assertThat(call(ANA, "recall", "{\"operation\":\"insert\",\"label\":\"trip\",\"content\":\"Lisbon in May\",\"tags\":[\"travel\"]}")
                    .content()).startsWith("Stored archival entry 'trip' (13 characters");
            call(ANA, "recall", "{\"operation\":\"append\",\"label\":\"trip\",\"content\":\"Hotel booked\"}");
            assertThat(call(ANA, "recall", "{\"operation\":\"read\",\"label\":\"trip\"}").content())
                    .startsWith("Archival entry 'trip' (tags: travel), updated ").endsWith(":\nLisbon in May\nHotel booked");
            assertThat(call(ANA, "recall", "{\"operation\":\"delete\",\"label\":\"trip\"}").content())
                    .isEqualTo("Your archival memory has permission read_write, which does not allow delete. Nothing was changed.");
            assertThat(call(ANA, "recall", "{\"operation\":\"insert\",\"label\":\"trip\",\"content\":\"again\"}").content())
                    .contains("already exists");
            ToolRegistry admin = ToolRegistry.create().registerAll(BuiltinTools.memory(store, search, PermissionBroker.denyAll(),
                    BuiltinTools.MemoryToolOptions.defaults().withArchivalPermission(MemoryPermission.ADMIN)));
            ToolResult deleted = ToolExecutor.builder(admin).approvalMode(ApprovalMode.YOLO).build().execute(
                    ToolCall.of("recall", "{\"operation\":\"delete\",\"label\":\"trip\"}"),
                    ToolContext.builder().userId("ana").agentId("helper").build());
            assertThat(deleted.content()).isEqualTo("Deleted archival entry 'trip'.");
            assertThat(store.archival().getByLabel(ANA, "trip")).isEmpty();
        }

        @Test
        void searchFindsAcrossDomainsWithinTheScope() throws Exception {
            store.archival().insert(ANA, NewArchivalEntry.of("Ana's passport expires in 2031"));
            store.messages().append(ANA, NewMessage.user("s0", "I need to renew my passport soon"));
            store.notes().save("ana", "Passport is in the top drawer");
            store.archival().insert(BEN, NewArchivalEntry.of("Ben's passport number is secret"));
            ToolResult r = call(ANA, "search", "{\"query\":\"passport\"}");
            JsonNode hits = JSON.readTree(r.content());
            assertThat(hits).hasSize(3);
            assertThat(hits.findValuesAsString("domain")).containsExactlyInAnyOrder("archival_memory", "conversations", "notes");
            assertThat(r.content()).doesNotContain("Ben");
            assertThat(hits.get(0).propertyNames()).containsExactly("text", "domain", "score", "timestamp", "id");
            JsonNode notesOnly = JSON.readTree(call(ANA, "search", "{\"query\":\"passport\",\"domain\":\"notes\",\"limit\":5}").content());
            assertThat(notesOnly).hasSize(1);
            assertThat(call(ANA, "search", "{\"query\":\"passport\",\"limit\":51}").content())
                    .isEqualTo("limit must be between 1 and 50, got 51.");
            assertThat(call(ANA, "search", "{\"query\":\"passport\",\"start_time\":\"yesterday\"}").content())
                    .isEqualTo("start_time must be an ISO-8601 instant such as 2026-05-01T00:00:00Z, got \"yesterday\".");
            assertThat(call(ANA, "search", "{\"query\":\"passport\",\"domain\":\"everything\"}").status())
                    .isEqualTo(ToolStatus.INVALID_ARGUMENTS);
        }
    }

    @Nested
    class Notes {
        @Test
        void saveUpdateSearchDelete() throws Exception {
            JsonNode saved = JSON.readTree(call(ANA, "memory_save", "{\"content\":\"Ana prefers window seats on flights\"}").content());
            String id = saved.path("note_id").asString();
            assertThat(id).matches("note-[0-9a-f-]{36}");
            assertThat(saved.path("message").asString()).isEqualTo("Note saved.");
            // memory_update supersedes: the new text is the current note, the old one is kept as its history.
            JsonNode updated = JSON.readTree(call(ANA, "memory_update",
                    "{\"note_id\":\"" + id + "\",\"content\":\"Ana prefers aisle seats on flights\"}").content());
            String current = updated.path("note_id").asString();
            assertThat(store.notes().get("ana", current).orElseThrow().content()).isEqualTo("Ana prefers aisle seats on flights");
            assertThat(store.notes().history("ana", current)).extracting(Note::content)
                    .containsExactly("Ana prefers window seats on flights", "Ana prefers aisle seats on flights");
            JsonNode found = JSON.readTree(call(ANA, "memory_search", "{\"query\":\"seat preference\"}").content());
            assertThat(found).hasSize(1);
            assertThat(found.get(0).propertyNames()).containsExactly("text", "source", "score", "note_id");
            assertThat(found.get(0).path("note_id").asString()).isEqualTo(current);
            assertThat(call(ANA, "memory_update", "{\"note_id\":\"" + id + "\",\"content\":\"stale\"}").content())
                    .contains("was superseded by '" + current + "'");
            id = current;
            assertThat(found.get(0).path("source").asString()).isEqualTo("notes");
            // Every agent of the user sees the note.
            assertThat(JSON.readTree(call(Scope.of("ana", "coach"), "memory_search", "{\"query\":\"seat preference\"}").content()))
                    .hasSize(1);
            call(ANA, "memory_delete", "{\"note_id\":\"" + id + "\"}");
            assertThat(store.notes().get("ana", id)).isEmpty();
            assertThat(JSON.readTree(call(ANA, "memory_search", "{\"query\":\"seat preference\"}").content())).isEmpty();
        }

        /** Tool arguments as JSON; filters and metadata travel as JSON text, which every provider's strict schemas allow. */
        private String args(Object... keyValues) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            for (int i = 0; i < keyValues.length; i += 2) {
                m.put((String) keyValues[i], keyValues[i + 1]);
            }
            return JSON.writeValueAsString(m);
        }

        @Test
        void notesCarryMetadataAndSearchesFilterOnItWithAClearErrorForABadFilter() throws Exception {
            call(ANA, "memory_save", args("content", "Apollo launch slips to May", "metadata", "{\"project\": \"apollo\", \"priority\": 3}"));
            call(ANA, "memory_save", args("content", "Gemini launch slips to June", "metadata", "{\"project\": \"gemini\", \"priority\": 1}"));
            assertThat(store.notes().list("ana", 0, 10)).extracting(n -> n.metadata().get("project").orElseThrow())
                    .containsExactlyInAnyOrder("apollo", "gemini");
            JsonNode found = JSON.readTree(call(ANA, "memory_search", args("query", "launch",
                    "filter", "{\"AND\": [{\"project\": \"apollo\"}, {\"priority\": {\"gte\": 2}}]}")).content());
            assertThat(found).hasSize(1);
            assertThat(found.get(0).path("text").asString()).contains("Apollo");
            JsonNode viaSearch = JSON.readTree(call(ANA, "search", args("query", "launch", "domain", "notes",
                    "filter", "{\"project\": {\"ne\": \"apollo\"}}")).content());
            assertThat(viaSearch).hasSize(1);
            assertThat(viaSearch.get(0).path("text").asString()).contains("Gemini");
            assertThat(JSON.readTree(call(ANA, "search", args("query", "launch", "min_score", 1000)).content())).isEmpty();
            ToolResult bad = call(ANA, "search", args("query", "launch", "filter", "{\"priority\": {\"gtt\": 2}}"));
            assertThat(bad.status()).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(bad.content()).contains("filter part 'priority.gtt' unknown operator 'gtt'");
            long before = store.changes().lastSeq();
            assertThat(call(ANA, "memory_save", args("content", "x", "metadata", "{\"created_at\": 1}")).content())
                    .contains("'created_at' is reserved");
            assertThat(store.changes().lastSeq()).isEqualTo(before);
        }

        @Test
        void conversationsAreIncludedOnlyWhenAsked() throws Exception {
            store.messages().append(ANA, NewMessage.user("s0", "My favourite colour is teal"));
            assertThat(JSON.readTree(call(ANA, "memory_search", "{\"query\":\"favourite colour\"}").content())).isEmpty();
            JsonNode withConversation = JSON.readTree(call(ANA, "memory_search",
                    "{\"query\":\"favourite colour\",\"include_conversation\":true}").content());
            assertThat(withConversation).hasSize(1);
            assertThat(withConversation.get(0).path("source").asString()).isEqualTo("conversations");
            assertThat(withConversation.get(0).path("note_id").isNull()).isTrue();
            assertThat(call(ANA, "memory_search", "{\"query\":\"x\",\"top_k\":21}").content())
                    .isEqualTo("top_k must be between 1 and 20, got 21.");
        }
    }

    @Nested
    class Isolation {
        @Test
        void anotherUsersMemoryIsUnreachableThroughEveryTool() throws Exception {
            Note bens = store.notes().save("ben", "Ben's bank PIN hint: birthday");
            store.blocks().create(BEN, NewBlock.builder("human").value("Ben is a pilot").build());
            store.archival().insert(BEN, NewArchivalEntry.labelled("bank", "Ben banks at Caixa", List.of()));
            assertThat(call(ANA, "memory_update", "{\"note_id\":\"" + bens.id() + "\",\"content\":\"hacked\"}").content())
                    .isEqualTo("There is no note '" + bens.id() + "' for this user.");
            assertThat(call(ANA, "memory_delete", "{\"note_id\":\"" + bens.id() + "\"}").status()).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(call(ANA, "block", "{\"operation\":\"view\",\"label\":\"human\"}").content()).doesNotContain("pilot");
            assertThat(call(ANA, "block", "{\"operation\":\"append\",\"label\":\"human\",\"text\":\"x\"}").status())
                    .isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(call(ANA, "recall", "{\"operation\":\"read\",\"label\":\"bank\"}").content())
                    .startsWith("There is no archival entry labelled 'bank'");
            assertThat(call(ANA, "search", "{\"query\":\"Ben bank PIN pilot Caixa\"}").content()).isEqualTo("[]");
            assertThat(call(ANA, "memory_search", "{\"query\":\"bank PIN\",\"include_conversation\":true}").content()).isEqualTo("[]");
            assertThat(store.notes().get("ben", bens.id()).orElseThrow().content()).isEqualTo("Ben's bank PIN hint: birthday");
            assertThat(store.blocks().get(BEN, "human").orElseThrow().value()).isEqualTo("Ben is a pilot");
        }

        @Test
        void aCallWithoutIdentityIsAnErrorResult() {
            ToolResult r = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build()
                    .execute(ToolCall.of("memory_save", "{\"content\":\"x\"}"), ToolContext.empty());
            assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(r.content()).contains("has no user id");
            assertThat(store.notes().count("ana")).isZero();
        }
    }

    @Test
    void sendMessageHandsTheMessageToTheRouter() throws Exception {
        ToolResult r = call(ANA, "send_message", "{\"message\":\"Your flight is at 9.\"}");
        assertThat(JSON.readTree(r.content())).isEqualTo(JSON.readTree("{\"success\":true,\"message\":\"Message sent successfully\"}"));
        assertThat(sent).containsExactly(new OutgoingMessage("ana", "helper", "s1", java.util.Optional.empty(), "Your flight is at 9."));
        call(ANA, "send_message", "{\"message\":\"Please check the calendar.\",\"target_agent_id\":\"planner\"}");
        assertThat(sent.get(1).toAgentId()).contains("planner");
        assertThat(call(ANA, "send_message", "{\"message\":\"  \"}").content()).isEqualTo("message is empty; write what to send.");
    }

    @Test
    void sendMessageReturnsTheReplyOfAnAgentThatAnswered() throws Exception {
        ToolRegistry replying = ToolRegistry.create().register(BuiltinTools.sendMessage(
                m -> java.util.Optional.of("Planned: " + m.text())));
        ToolResult r = ToolExecutor.builder(replying).approvalMode(ApprovalMode.YOLO).build().execute(
                new ToolCall("c1", "send_message", "{\"message\":\"plan a trip\",\"target_agent_id\":\"planner\"}"),
                ToolContext.builder().userId("ana").agentId("helper").sessionId("s1").build());
        assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(JSON.readTree(r.content()).path("reply").asString()).isEqualTo("Planned: plan a trip");
    }
}
