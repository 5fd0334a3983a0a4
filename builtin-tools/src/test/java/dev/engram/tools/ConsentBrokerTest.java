package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MigratedSqlite;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import dev.engram.memory.lucene.LuceneMemorySearch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a permission broker is told (the writing call's id) and what a broker that cannot ask anyone makes the call say. */
class ConsentBrokerTest {
    private static final Scope ANA = Scope.of("ana", "helper");

    @TempDir
    Path dir;
    MemoryStore store;
    MemorySearch search;

    @BeforeEach
    void open() {
        store = MemoryStore.sqlite(MigratedSqlite.at(dir.resolve("memory.db")));
        search = LuceneMemorySearch.builder(store, Embedder.unavailable("none", 8, "not needed here"))
                .backgroundInterval(Duration.ZERO).build();
        store.blocks().create(ANA, NewBlock.builder("diary").value("Ana's diary.").permission(MemoryPermission.HUMAN).build());
    }

    @AfterEach
    void close() {
        search.close();
        store.close();
    }

    private ToolResult append(PermissionBroker broker, String callId) {
        ToolExecutor tools = ToolExecutor.builder(ToolRegistry.create().registerAll(BuiltinTools.memory(store, search, broker)))
                .approvalMode(ApprovalMode.YOLO).build();
        return tools.execute(new ToolCall(callId, "block", "{\"operation\":\"append\",\"label\":\"diary\",\"text\":\"Ana met Ben\"}"),
                ToolContext.builder().userId("ana").agentId("helper").sessionId("s1").build());
    }

    @Test
    void theBrokerIsToldWhichCallWantsToWrite() {
        List<ConsentRequest> asked = new CopyOnWriteArrayList<>();
        ToolResult r = append(request -> {
            asked.add(request);
            return CompletableFuture.completedFuture(true);
        }, "call-42");
        assertThat(r.status()).as(r.content()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(asked).singleElement().satisfies(q -> {
            assertThat(q.callId()).isEqualTo("call-42");
            assertThat(q.label()).isEqualTo("diary");
            assertThat(q.permission()).isEqualTo(MemoryPermission.HUMAN);
        });
        assertThat(store.blocks().get(ANA, "diary").orElseThrow().value()).endsWith("Ana met Ben");
    }

    @Test
    void aBrokerThatCannotAskRefusesTheWriteNamingWhyAndNothingChanges() {
        ToolResult r = append(request -> PermissionBroker.cannotAsk("the MCP client does not support elicitation"), "call-1");
        assertThat(r.isError()).isTrue();
        assertThat(r.content()).contains("needs consent").contains("could not be asked for: the MCP client does not support "
                + "elicitation").contains("Nothing was changed");
        assertThat(store.blocks().get(ANA, "diary").orElseThrow().value()).isEqualTo("Ana's diary.");
    }

    /**
     * The block tool runs on the caller's thread (inside a step's one transaction) only while its broker answers at
     * once: with a broker that may wait for a person, a consent wait must not hold the caller's transaction open (the
     * person's answer is itself a write).
     */
    @Test
    void theBlockToolRunsInlineOnlyWhileItsBrokerAnswersAtOnce() {
        assertThat(PermissionBroker.denyAll().answersAtOnce()).isTrue();
        PermissionBroker asking = request -> CompletableFuture.completedFuture(true);
        assertThat(asking.answersAtOnce()).isFalse();
        assertThat(new BlockTool(store, PermissionBroker.denyAll(), Duration.ofSeconds(5), 5_000, MemoryPermission.READ_WRITE)
                .runsInline()).isTrue();
        assertThat(new BlockTool(store, asking, Duration.ofSeconds(5), 5_000, MemoryPermission.READ_WRITE).runsInline())
                .isFalse();
    }
}
