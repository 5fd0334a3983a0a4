package dev.engram.tools;

import static dev.engram.memory.MemoryPermission.ADMIN;
import static dev.engram.memory.MemoryPermission.APPEND;
import static dev.engram.memory.MemoryPermission.HUMAN;
import static dev.engram.memory.MemoryPermission.PARTNER;
import static dev.engram.memory.MemoryPermission.READ_WRITE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Block;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MigratedSqlite;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every cell of the block paging table in this module's README: archive (to a new or an existing
 * archival entry), load and swap, against each block permission and each archival permission, and
 * what happens to the archival entry. Expectations are written out here, not computed with {@code Acl}.
 */
class BlockPagingRulesTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    /** Block permissions that may be archived without asking: overwrite is allowed. */
    private static final Set<MemoryPermission> ARCHIVE_ALLOWED = EnumSet.of(READ_WRITE, ADMIN);
    /** Block permissions that may be archived with the user's consent. */
    private static final Set<MemoryPermission> ARCHIVE_WITH_CONSENT = EnumSet.of(PARTNER, HUMAN);
    /** Archival permissions that allow a new entry. */
    private static final Set<MemoryPermission> NEW_ENTRY_ALLOWED = EnumSet.of(APPEND, READ_WRITE, ADMIN);
    /** Archival permissions that allow replacing an existing entry. */
    private static final Set<MemoryPermission> REPLACE_ENTRY_ALLOWED = EnumSet.of(READ_WRITE, ADMIN);

    @TempDir
    Path dir;

    private MemoryStore store;
    private boolean consent;
    private int consentsAsked;

    @BeforeEach
    void open() {
        store = MemoryStore.sqlite(MigratedSqlite.at(dir.resolve("memory.db")));
    }

    @AfterEach
    void close() {
        store.close();
    }

    private ToolResult call(MemoryPermission archivalPermission, String args) {
        PermissionBroker broker = request -> {
            consentsAsked++;
            return CompletableFuture.completedFuture(consent);
        };
        DynamicTool tool = DynamicTool.from(new BlockTool(store, broker, Duration.ofSeconds(5), 5_000, archivalPermission));
        ToolExecutor executor = ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(ApprovalMode.YOLO).build();
        return executor.execute(ToolCall.of("block", args),
                ToolContext.builder().userId(ANA.userId()).agentId(ANA.agentId()).sessionId("s").build());
    }

    private Block block(String label, String value, MemoryPermission permission) {
        return store.blocks().create(ANA, NewBlock.builder(label).value(value).permission(permission).build());
    }

    private ArchivalEntry entry(String label, String content) {
        return store.archival().insert(ANA, NewArchivalEntry.labelled(label, content, List.of("kept-tag")));
    }

    private Optional<ArchivalEntry> entry(String label) {
        return store.archival().getByLabel(ANA, label);
    }

    /** Asserts a refused call changed nothing at all. */
    private void assertRefusedWithoutChange(ToolResult result, long seqBefore) {
        assertThat(result.isError()).as(result.content()).isTrue();
        assertThat(result.content()).endsWith("Nothing was changed.");
        assertThat(store.changes().lastSeq()).isEqualTo(seqBefore);
    }

    @ParameterizedTest(name = "archive a {0} block to a new entry")
    @EnumSource(MemoryPermission.class)
    void archiveToANewEntryByBlockPermission(MemoryPermission permission) {
        for (boolean granted : List.of(true, false)) {
            consent = granted;
            consentsAsked = 0;
            String label = "b_" + permission.name().toLowerCase() + "_" + granted;
            Block before = block(label, "text of " + label, permission);
            long seq = store.changes().lastSeq();
            ToolResult r = call(READ_WRITE, "{\"operation\":\"archive\",\"label\":\"" + label + "\"}");
            boolean allowed = ARCHIVE_ALLOWED.contains(permission) || (ARCHIVE_WITH_CONSENT.contains(permission) && granted);
            assertThat(consentsAsked).isEqualTo(ARCHIVE_WITH_CONSENT.contains(permission) ? 1 : 0);
            if (allowed) {
                assertThat(r.isError()).as(r.content()).isFalse();
                assertThat(store.blocks().get(ANA, label)).isEmpty();
                assertThat(entry(label).orElseThrow().content()).isEqualTo(before.value());
            } else {
                assertRefusedWithoutChange(r, seq);
                assertThat(store.blocks().get(ANA, label)).contains(before);
                assertThat(entry(label)).isEmpty();
            }
        }
    }

    @ParameterizedTest(name = "archive to a new entry with archival permission {0}")
    @EnumSource(MemoryPermission.class)
    void archiveToANewEntryByArchivalPermission(MemoryPermission archival) {
        Block before = block("trip", "Lisbon in May", READ_WRITE);
        long seq = store.changes().lastSeq();
        ToolResult r = call(archival, "{\"operation\":\"archive\",\"label\":\"trip\"}");
        if (NEW_ENTRY_ALLOWED.contains(archival)) {
            assertThat(r.isError()).as(r.content()).isFalse();
            assertThat(entry("trip").orElseThrow().content()).isEqualTo("Lisbon in May");
        } else {
            assertRefusedWithoutChange(r, seq);
            assertThat(r.content()).contains("does not allow adding an entry");
            assertThat(store.blocks().get(ANA, "trip")).contains(before);
        }
    }

    @ParameterizedTest(name = "archive onto an existing entry with archival permission {0}")
    @EnumSource(MemoryPermission.class)
    void archiveOntoAnExistingEntryByArchivalPermission(MemoryPermission archival) {
        ArchivalEntry old = entry("trip", "old plan");
        Block before = block("trip", "new plan", ADMIN);
        long seq = store.changes().lastSeq();
        ToolResult r = call(archival, "{\"operation\":\"archive\",\"label\":\"trip\"}");
        if (REPLACE_ENTRY_ALLOWED.contains(archival)) {
            assertThat(r.isError()).as(r.content()).isFalse();
            ArchivalEntry now = entry("trip").orElseThrow();
            assertThat(now.content()).isEqualTo("new plan");
            assertThat(now.id()).isEqualTo(old.id());
            assertThat(now.tags()).containsExactly("kept-tag");
        } else {
            assertRefusedWithoutChange(r, seq);
            assertThat(r.content()).contains("does not allow replacing the existing entry 'trip'");
            assertThat(entry("trip")).contains(old);
            assertThat(store.blocks().get(ANA, "trip")).contains(before);
        }
    }

    @ParameterizedTest(name = "load with archival permission {0}")
    @EnumSource(MemoryPermission.class)
    void loadCopiesTheEntryAndKeepsItWhateverThePermission(MemoryPermission archival) {
        ArchivalEntry old = entry("trip", "Lisbon in May");
        ToolResult same = call(archival, "{\"operation\":\"load\",\"label\":\"trip\"}");
        ToolResult other = call(archival, "{\"operation\":\"load\",\"label\":\"trip\",\"as_label\":\"current_trip\"}");
        assertThat(same.content()).endsWith("; the archival entry is kept.");
        assertThat(other.isError()).as(other.content()).isFalse();
        assertThat(store.blocks().get(ANA, "trip").orElseThrow().value()).isEqualTo("Lisbon in May");
        assertThat(store.blocks().get(ANA, "current_trip").orElseThrow().permission()).isEqualTo(READ_WRITE);
        assertThat(entry("trip")).contains(old);
    }

    @ParameterizedTest(name = "swap out a {0} block")
    @EnumSource(MemoryPermission.class)
    void swapByBlockPermission(MemoryPermission permission) {
        consent = true;
        ArchivalEntry incoming = entry("project", "Engram launch");
        Block before = block("trip", "Lisbon in May", permission);
        long seq = store.changes().lastSeq();
        ToolResult r = call(READ_WRITE, "{\"operation\":\"swap\",\"archive_label\":\"trip\",\"load_label\":\"project\"}");
        if (ARCHIVE_ALLOWED.contains(permission) || ARCHIVE_WITH_CONSENT.contains(permission)) {
            assertThat(r.isError()).as(r.content()).isFalse();
            assertThat(store.blocks().get(ANA, "trip")).isEmpty();
            assertThat(entry("trip").orElseThrow().content()).isEqualTo("Lisbon in May");
            assertThat(store.blocks().get(ANA, "project").orElseThrow().value()).isEqualTo("Engram launch");
        } else {
            assertRefusedWithoutChange(r, seq);
            assertThat(store.blocks().get(ANA, "trip")).contains(before);
            assertThat(store.blocks().get(ANA, "project")).isEmpty();
        }
        assertThat(entry("project")).as("the loaded entry stays").contains(incoming);
    }

    @ParameterizedTest(name = "swap onto an existing entry with archival permission {0}")
    @EnumSource(MemoryPermission.class)
    void swapOntoAnExistingEntryByArchivalPermission(MemoryPermission archival) {
        ArchivalEntry old = entry("trip", "old plan");
        entry("project", "Engram launch");
        block("trip", "new plan", READ_WRITE);
        long seq = store.changes().lastSeq();
        ToolResult r = call(archival, "{\"operation\":\"swap\",\"archive_label\":\"trip\",\"load_label\":\"project\"}");
        if (REPLACE_ENTRY_ALLOWED.contains(archival)) {
            assertThat(r.isError()).as(r.content()).isFalse();
            assertThat(entry("trip").orElseThrow().content()).isEqualTo("new plan");
        } else {
            assertRefusedWithoutChange(r, seq);
            assertThat(entry("trip")).contains(old);
        }
    }

    @Test
    void aSharedBlockIsArchivedOnlyByItsOwnerAndNoConsentIsAskedFirst() {
        store.blocks().create(Scope.of("ana", "coach"), NewBlock.builder("plan").value("run daily").build());
        store.blocks().share(Scope.of("ana", "coach"), "plan", ANA.agentId(), PARTNER);
        consent = true;
        long seq = store.changes().lastSeq();
        ToolResult r = call(READ_WRITE, "{\"operation\":\"archive\",\"label\":\"plan\"}");
        assertRefusedWithoutChange(r, seq);
        assertThat(r.content()).startsWith("Block 'plan' is shared with you by agent 'coach'; only its owner can move it");
        assertThat(consentsAsked).isZero();
    }

    /** Bug 1: recall refuses to delete the entry, and load must not delete it either. */
    @Test
    void loadNeverDeletesAnEntryThatRecallMayNotDelete() {
        entry("trip", "Lisbon in May");
        ToolRegistry registry = ToolRegistry.create().register(DynamicTool.from(new RecallTool(store, READ_WRITE)));
        ToolResult delete = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build().execute(
                ToolCall.of("recall", "{\"operation\":\"delete\",\"label\":\"trip\"}"),
                ToolContext.builder().userId("ana").agentId("helper").build());
        assertThat(delete.content()).contains("does not allow delete");
        call(READ_WRITE, "{\"operation\":\"load\",\"label\":\"trip\"}");
        assertThat(entry("trip").orElseThrow().tags()).containsExactly("kept-tag");
    }

    /** Bug 2: a block created with the defaults (read_write) can be archived and swapped. */
    @Test
    void aDefaultBlockCanBeArchivedAndSwapped() {
        store.blocks().create(ANA, NewBlock.builder("notes").value("first").build());
        store.blocks().create(ANA, NewBlock.builder("plan").value("second").build());
        entry("project", "Engram launch");
        assertThat(call(READ_WRITE, "{\"operation\":\"archive\",\"label\":\"notes\"}").isError()).isFalse();
        assertThat(call(READ_WRITE, "{\"operation\":\"swap\",\"archive_label\":\"plan\",\"load_label\":\"project\"}").isError())
                .isFalse();
        assertThat(store.blocks().list(ANA)).extracting(Block::label).containsExactly("project");
    }

    /** Bug 3: replacing an existing entry is decided on the archival permission, not on the block's. */
    @Test
    void archivingOntoAnExistingEntryChecksTheArchivalPermission() {
        ArchivalEntry old = entry("trip", "old plan");
        block("trip", "new plan", ADMIN);
        ToolResult r = call(APPEND, "{\"operation\":\"archive\",\"label\":\"trip\"}");
        assertThat(r.content()).isEqualTo("Your archival memory has permission append, which does not allow replacing "
                + "the existing entry 'trip'. Nothing was changed.");
        assertThat(entry("trip")).contains(old);
    }
}
