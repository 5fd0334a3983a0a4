package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.memory.Archive;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MigratedSqlite;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.WordHashEmbedder;
import dev.engram.memory.lucene.LuceneMemorySearch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An archive shared by two agents of one user, through the real tool pipeline: {@code archival_memory_search} and
 * {@code search} cover each agent's own memory and the archive, every hit naming where it came from;
 * {@code archival_memory_insert} still writes to the agent's own memory; a detach takes effect at the next search; a
 * third user finds nothing of it.
 */
class ArchiveSearchToolsTest {
    private static final Scope ANA_HELPER = Scope.of("ana", "helper");
    private static final Scope ANA_COACH = Scope.of("ana", "coach");
    private static final Scope BEN = Scope.of("ben", "helper");

    @TempDir
    Path dir;

    private MemoryStore store;
    private MemorySearch search;
    private ToolExecutor executor;
    private Archive handbook;

    @BeforeEach
    void setUp() {
        store = MemoryStore.sqlite(MigratedSqlite.at(dir.resolve("memory.db")));
        search = LuceneMemorySearch.builder(store, new WordHashEmbedder()).backgroundInterval(Duration.ZERO).build();
        BuiltinTools.MemoryToolOptions options = BuiltinTools.MemoryToolOptions.defaults();
        ToolRegistry registry = ToolRegistry.create()
                .registerAll(BuiltinTools.memory(store, search, r -> CompletableFuture.completedFuture(true), options))
                .registerAll(BuiltinTools.letta(store, search, r -> CompletableFuture.completedFuture(true), options));
        executor = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build();
        for (Scope s : List.of(ANA_HELPER, ANA_COACH, BEN)) {
            store.agents().create(s, s.agentId(), "{}");
        }
        handbook = store.archives().create("ana", "handbook", "Company policies");
        store.archives().insert("ana", handbook.id(), List.of(NewArchivalEntry.of("Holiday allowance is 25 days a year")));
        store.archives().attach(ANA_HELPER, handbook.id());
        store.archives().attach(ANA_COACH, handbook.id());
        store.archival().insert(ANA_HELPER, NewArchivalEntry.of("Ana plans her holiday in May"));
    }

    @AfterEach
    void tearDown() {
        search.close();
        store.close();
    }

    private String ok(Scope scope, String tool, String args) {
        ToolResult r = executor.execute(ToolCall.of(tool, args),
                ToolContext.builder().userId(scope.userId()).agentId(scope.agentId()).build());
        assertThat(r.status()).as("%s %s: %s", tool, args, r.content()).isEqualTo(ToolStatus.SUCCESS);
        return r.content();
    }

    @Test
    void bothAgentsFindTheSharedPassageNamedByItsArchiveBesideTheirOwn() {
        String helper = ok(ANA_HELPER, "archival_memory_search", "{\"query\": \"holiday\"}");
        assertThat(helper).contains("Holiday allowance is 25 days a year", "archive 'handbook' (" + handbook.id() + ")",
                "Ana plans her holiday in May", LettaRecallTools.OWN_SOURCE);
        String coach = ok(ANA_COACH, "archival_memory_search", "{\"query\": \"holiday\"}");
        assertThat(coach).contains("Holiday allowance is 25 days a year", "archive 'handbook'").doesNotContain("Ana plans");
        assertThat(ok(ANA_COACH, "search", "{\"query\": \"holiday\", \"domain\": \"archival_memory\"}"))
                .contains("Holiday allowance", "\"archive\":\"archive 'handbook' (" + handbook.id() + ")\"");
        assertThat(ok(ANA_HELPER, "search", "{\"query\": \"plans May\", \"domain\": \"archival_memory\", \"limit\": 1}"))
                .contains("Ana plans").doesNotContain("\"archive\"");
    }

    @Test
    void insertWritesTheAgentsOwnMemoryAndTheArchiveStaysAsItWas() {
        ok(ANA_COACH, "archival_memory_insert", "{\"content\": \"The coach's holiday is in June\"}");
        assertThat(store.archival().list(ANA_COACH, 0, 10)).extracting(e -> e.content())
                .containsExactly("The coach's holiday is in June");
        assertThat(store.archives().passages("ana", handbook.id(), 0, 10)).extracting(e -> e.content())
                .containsExactly("Holiday allowance is 25 days a year");
        assertThat(ok(ANA_HELPER, "archival_memory_search", "{\"query\": \"holiday\"}")).doesNotContain("June");
    }

    @Test
    void aDetachedArchiveLeavesTheNextSearchAtOnce() {
        store.archives().detach(ANA_HELPER, handbook.id());
        assertThat(ok(ANA_HELPER, "archival_memory_search", "{\"query\": \"holiday\"}")).contains("Ana plans")
                .doesNotContain("allowance");
        assertThat(ok(ANA_HELPER, "search", "{\"query\": \"holiday allowance\"}")).doesNotContain("allowance");
        assertThat(ok(ANA_COACH, "archival_memory_search", "{\"query\": \"holiday\"}")).contains("allowance");
    }

    @Test
    void aThirdUserSeesNothingOfTheArchive() {
        store.archival().insert(BEN, NewArchivalEntry.of("Ben's holiday is unplanned"));
        String ben = ok(BEN, "archival_memory_search", "{\"query\": \"holiday allowance\"}");
        assertThat(ben).contains("Ben's holiday").doesNotContain("allowance").doesNotContain(handbook.id());
        assertThat(ok(BEN, "search", "{\"query\": \"holiday allowance\"}")).doesNotContain("allowance");
    }
}
