package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every {@link dev.engram.memory.spi.MemoryBackend} must do, seen through the {@link MemoryStore}
 * over it. Extend it, implement {@link #open(Path)} (usually {@code MemoryStore.over(new YourBackend(...))}),
 * and run it: the same tests run against the SQLite backend, the in-memory reference and the samples'
 * PostgreSQL backend (the engram-memory test-jar ships this class).
 */
public abstract class MemoryStoreConformance {
    /** Opens a fresh, empty store; {@code dir} is a temporary directory it may use. */
    protected abstract MemoryStore open(Path dir);

    @TempDir
    protected Path dir;

    protected MemoryStore store;

    protected static final Scope ANA = Scope.of("ana", "helper");
    protected static final Scope ANA_COACH = Scope.of("ana", "coach");
    protected static final Scope BEN = Scope.of("ben", "helper");

    @BeforeEach
    void openStore() {
        store = open(dir);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    protected Block human(Scope scope, String value, int limit) {
        return store.blocks().create(scope, NewBlock.builder("human").description("Facts about the user")
                .value(value).limit(limit).build());
    }

    /** Runs {@code write}, expects {@code type}, and checks that the change log did not move. */
    protected <T extends Throwable> T rejectedWithoutChange(Class<T> type, Runnable write) {
        long before = store.changes().lastSeq();
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(write::run);
        assertThat(thrown).isInstanceOf(type);
        assertThat(store.changes().lastSeq()).as("change log after a rejected write").isEqualTo(before);
        return type.cast(thrown);
    }

    /** {@link MemoryStore#inTransaction}: one unit of work, committed whole or not at all, on this backend. */
    @Nested
    class UnitOfWork extends UnitOfWorkConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** {@link MemoryStore#withQuotas}: per-user quotas checked inside each write's transaction, on this backend. */
    @Nested
    class Quotas extends QuotaConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** The canvas artefacts of agents, on this backend. */
    @Nested
    class Canvases extends CanvasConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** Metadata, filters, minimum scores and facts over time, searched over this backend. */
    @Nested
    class Filters extends SearchFilterConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** Background jobs, stored when accepted and found again at a start, on this backend. */
    @Nested
    class Jobs extends JobConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** Folders of uploaded files, their passages and their search, on this backend. */
    @Nested
    class Folders extends FolderConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** Folders attached to agents and each agent's open and closed files, on this backend. */
    @Nested
    class AgentFolderFiles extends AgentFolderConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** Archives shared by agents, on this backend. */
    @Nested
    class CustomTools extends CustomToolConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    @Nested
    class Archives extends ArchiveConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** Multi-agent groups, on this backend. */
    @Nested
    class Groups extends GroupConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** The images of user messages, on this backend. */
    @Nested
    class Images extends MessageImageConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** The model's reasoning behind assistant messages, on this backend. */
    @Nested
    class Reasoning extends MessageReasoningConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** Corrections of stored messages, on this backend. */
    @Nested
    class Edits extends MessageEditConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** One user's stretch of the change log, on this backend. */
    @Nested
    class UserChanges extends UserChangeLogConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** The steps of runs, on this backend. */
    @Nested
    class Steps extends StepConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    /** Each agent's todos and goals, on this backend. */
    @Nested
    class Work extends WorkStateConformance {
        @Override
        protected MemoryStore store() {
            return store;
        }
    }

    @Nested
    class Usage {
        @Test
        void usageCountsTheUsersAgentsOwnedBlocksArchivalEntriesNotesAndTheirBytes() {
            assertThat(store.usage("ana")).isEqualTo(UserUsage.NONE);
            store.agents().create(ANA, "Helper", "{}");
            store.agents().create(ANA_COACH, "Coach", "{}");
            store.agents().create(BEN, "Helper", "{}");
            human(ANA, "Name: Ana", 100);                       // 9 bytes
            store.blocks().create(ANA_COACH, NewBlock.builder("plan").value("été").build()); // 5 bytes in UTF-8
            store.blocks().share(ANA, "human", "coach", MemoryPermission.READ_ONLY); // a share is not another block
            store.archival().insert(ANA, NewArchivalEntry.of("a fact"));            // 6 bytes
            store.archival().insert(ANA_COACH, NewArchivalEntry.of("ünd"));         // 4 bytes
            human(BEN, "Name: Ben, who has a longer block", 100);
            store.archival().insert(BEN, NewArchivalEntry.of("not ana's"));
            store.notes().save("ben", "Ben.");                                   // 4 bytes: notes count too

            assertThat(store.usage("ana")).isEqualTo(new UserUsage(2, 2, 2, 0, 9 + 5 + 6 + 4));
            assertThat(store.usage("ben")).isEqualTo(new UserUsage(1, 1, 1, 1, 33 + 9 + 4));
            assertThat(store.usage("carl")).isEqualTo(UserUsage.NONE);
        }
    }

    @Nested
    class Blocks {
        @Test
        void createdBlockReadsBackWithVersionOne() {
            Block created = human(ANA, "Name: Ana", 100);
            assertThat(created.version()).isEqualTo(1);
            assertThat(created.ownerAgentId()).isEqualTo("helper");
            assertThat(store.blocks().get(ANA, "human")).contains(created);
            assertThat(store.blocks().history(ANA, "human")).extracting(BlockVersion::value).containsExactly("Name: Ana");
        }

        @Test
        void duplicateLabelIsRejectedAndTheFirstBlockUnchanged() {
            Block first = human(ANA, "v1", 100);
            DuplicateException e = rejectedWithoutChange(DuplicateException.class, () -> human(ANA, "v2", 100));
            assertThat(e).hasMessage("Agent 'helper' already has a block labelled 'human'; choose another label or edit that block.");
            assertThat(store.blocks().get(ANA, "human")).contains(first);
        }

        @Test
        void initialValueOverTheLimitIsRejected() {
            assertThatThrownBy(() -> NewBlock.builder("x").value("12345").limit(4).build())
                    .isInstanceOf(LimitExceededException.class);
            assertThatThrownBy(() -> NewBlock.builder("x").limit(0).build()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("block limit must be positive, got 0");
        }

        @Test
        void renameKeepsValuePermissionAndHistoryUnderTheNewLabel() {
            human(ANA, "Name: Ana", 100);
            store.blocks().append(ANA, "human", "\nLikes tea", BlockStore.ANY_VERSION);
            Block renamed = store.blocks().rename(ANA, "human", "user_profile", 2);
            assertThat(renamed.label()).isEqualTo("user_profile");
            assertThat(renamed.value()).isEqualTo("Name: Ana\nLikes tea");
            assertThat(renamed.version()).isEqualTo(3);
            assertThat(store.blocks().get(ANA, "human")).isEmpty();
            assertThat(store.blocks().get(ANA, "user_profile")).contains(renamed);
            assertThat(store.blocks().history(ANA, "user_profile")).extracting(BlockVersion::operation)
                    .containsExactly("create", "append", "rename from 'human'");
            assertThat(store.blocks().list(ANA)).extracting(Block::label).containsExactly("user_profile");
        }

        @Test
        void renameIsRefusedOntoATakenLabelForAnotherAgentsBlockAndForAStaleVersion() {
            human(ANA, "a", 100);
            store.blocks().create(ANA, NewBlock.builder("persona").value("p").build());
            rejectedWithoutChange(DuplicateException.class, () -> store.blocks().rename(ANA, "human", "persona", BlockStore.ANY_VERSION));
            rejectedWithoutChange(VersionConflictException.class, () -> store.blocks().rename(ANA, "human", "x", 7));
            rejectedWithoutChange(NotFoundException.class, () -> store.blocks().rename(ANA_COACH, "human", "x", BlockStore.ANY_VERSION));
            rejectedWithoutChange(IllegalArgumentException.class, () -> store.blocks().rename(ANA, "human", "bad\nlabel", BlockStore.ANY_VERSION));
            assertThat(store.blocks().list(ANA)).extracting(Block::label).containsExactly("human", "persona");
        }

        @Test
        void aSharedBlockIsNotRenamedUnderItsReaders() {
            store.agents().create(ANA_COACH, "coach", "{}");
            human(ANA, "shared fact", 100);
            store.blocks().share(ANA, "human", "coach", MemoryPermission.READ_ONLY);
            IllegalArgumentException e = rejectedWithoutChange(IllegalArgumentException.class,
                    () -> store.blocks().rename(ANA, "human", "facts", BlockStore.ANY_VERSION));
            assertThat(e).hasMessageContaining("shared with agents [coach]");
            rejectedWithoutChange(NotFoundException.class, () -> store.blocks().rename(ANA_COACH, "human", "mine", BlockStore.ANY_VERSION));
            store.blocks().unshare(ANA, "human", "coach");
            assertThat(store.blocks().rename(ANA, "human", "facts", BlockStore.ANY_VERSION).value()).isEqualTo("shared fact");
        }

        @Test
        void sharingAndUnsharingABlockAreLoggedAsEventsOfTheAgentThatSeesIt() {
            store.agents().create(ANA_COACH, "coach", "{}");
            human(ANA, "shared fact", 100);
            long before = store.changes().lastSeq();
            store.blocks().share(ANA, "human", "coach", MemoryPermission.READ_ONLY);
            store.blocks().unshare(ANA, "human", "coach");
            assertThat(store.blocks().unshare(ANA, "human", "coach")).isFalse(); // no share: nothing logged
            assertThat(store.changes().since(before, 10))
                    .extracting(ChangeEvent::entity, ChangeEvent::id, ChangeEvent::op, ChangeEvent::agentId)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.BLOCK, "human", ChangeEvent.Op.UPSERT,
                                    Optional.of("coach")),
                            org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.BLOCK, "human", ChangeEvent.Op.DELETE,
                                    Optional.of("coach")));
        }

        @Test
        void appendAddsTextAndRecordsAVersion() {
            human(ANA, "Name: Ana", 100);
            Block b = store.blocks().append(ANA, "human", "\nLikes tea", BlockStore.ANY_VERSION);
            assertThat(b.value()).isEqualTo("Name: Ana\nLikes tea");
            assertThat(b.version()).isEqualTo(2);
            assertThat(store.blocks().get(ANA, "human")).contains(b);
            assertThat(store.blocks().history(ANA, "human")).extracting(BlockVersion::operation).containsExactly("create", "append");
        }

        @Test
        void appendBeyondLimitIsRejectedAndBlockUnchanged() {
            Block before = human(ANA, "0123456789", 15);
            LimitExceededException e = rejectedWithoutChange(LimitExceededException.class,
                    () -> store.blocks().append(ANA, "human", "abcdefgh", BlockStore.ANY_VERSION));
            assertThat(e.currentSize()).isEqualTo(10);
            assertThat(e.limit()).isEqualTo(15);
            assertThat(e.overflow()).isEqualTo(3);
            assertThat(e).hasMessage("Block 'human' holds 10 of 15 characters; this write would make it 18, 3 over the limit. "
                    + "The block is unchanged: shorten the text, or replace or archive older content first.");
            assertThat(store.blocks().get(ANA, "human")).contains(before);
            assertThat(store.blocks().history(ANA, "human")).hasSize(1);
        }

        @Test
        void replaceBeyondLimitIsRejectedAndBlockUnchanged() {
            Block before = human(ANA, "short", 8);
            rejectedWithoutChange(LimitExceededException.class,
                    () -> store.blocks().replace(ANA, "human", "much too long", BlockStore.ANY_VERSION));
            assertThat(store.blocks().get(ANA, "human")).contains(before);
        }

        @Test
        void replaceWithAStaleVersionConflictsAndChangesNothing() {
            human(ANA, "v1", 100);
            Block v2 = store.blocks().replace(ANA, "human", "v2", 1);
            VersionConflictException e = rejectedWithoutChange(VersionConflictException.class,
                    () -> store.blocks().replace(ANA, "human", "v3", 1));
            assertThat(e).hasMessage("Block 'human' is at version 2, not 1: it changed since it was read. "
                    + "Nothing was written; read it again and retry.");
            assertThat(store.blocks().get(ANA, "human")).contains(v2);
            assertThat(store.blocks().append(ANA, "human", "+", 2).value()).isEqualTo("v2+");
        }

        @Test
        void updateChangesValueAndSettingsInOneVersionSeenThroughEveryShare() {
            human(ANA, "likes tea", 100);
            store.blocks().share(ANA, "human", "coach", MemoryPermission.READ_ONLY);
            BlockUpdate change = BlockUpdate.of(store.blocks().get(ANA_COACH, "human").orElseThrow())
                    .withValue("likes coffee").withDescription("about Ana").withLimit(40)
                    .withPermission(MemoryPermission.APPEND);
            Block updated = store.blocks().update(ANA_COACH, "human", change, BlockStore.ANY_VERSION);
            Block own = store.blocks().get(ANA, "human").orElseThrow();
            assertThat(own.value()).isEqualTo("likes coffee");
            assertThat(own.description()).isEqualTo("about Ana");
            assertThat(own.limit()).isEqualTo(40);
            assertThat(own.permission()).isEqualTo(MemoryPermission.APPEND);
            assertThat(own.version()).isEqualTo(2).isEqualTo(updated.version());
            assertThat(store.blocks().history(ANA, "human")).extracting(BlockVersion::value)
                    .containsExactly("likes tea", "likes coffee");
            assertThat(store.blocks().get(ANA_COACH, "human").orElseThrow().value()).isEqualTo("likes coffee");
        }

        @Test
        void updateWithAValueOverTheNewLimitOrAStaleVersionChangesNothing() {
            Block before = human(ANA, "twelve chars", 100);
            rejectedWithoutChange(LimitExceededException.class, () -> store.blocks().update(ANA, "human",
                    BlockUpdate.of(before).withLimit(5).withDescription("changed"), BlockStore.ANY_VERSION));
            rejectedWithoutChange(VersionConflictException.class, () -> store.blocks().update(ANA, "human",
                    BlockUpdate.of(before).withValue("new"), 7));
            rejectedWithoutChange(NotFoundException.class, () -> store.blocks().update(ANA, "nope",
                    BlockUpdate.of(before), BlockStore.ANY_VERSION));
            assertThat(store.blocks().get(ANA, "human")).contains(before);
            assertThatThrownBy(() -> BlockUpdate.of(before).withLimit(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("block limit must be positive, got 0");
        }

        @Test
        void missingBlocksAreNotFoundForEveryOperation() {
            String message = "Agent 'helper' has no block labelled 'nope'.";
            assertThat(store.blocks().get(ANA, "nope")).isEmpty();
            assertThat(store.blocks().history(ANA, "nope")).isEmpty();
            assertThat(rejectedWithoutChange(NotFoundException.class,
                    () -> store.blocks().append(ANA, "nope", "x", BlockStore.ANY_VERSION))).hasMessage(message);
            assertThat(rejectedWithoutChange(NotFoundException.class,
                    () -> store.blocks().replace(ANA, "nope", "x", BlockStore.ANY_VERSION))).hasMessage(message);
            assertThat(rejectedWithoutChange(NotFoundException.class,
                    () -> store.blocks().delete(ANA, "nope", BlockStore.ANY_VERSION))).hasMessage(message);
            rejectedWithoutChange(NotFoundException.class, () -> store.blocks().restore(ANA, "nope", 1, BlockStore.ANY_VERSION));
            rejectedWithoutChange(NotFoundException.class, () -> store.blocks().archive(ANA, "nope", false));
        }

        @Test
        void deleteRemovesTheBlockAndItsHistory() {
            human(ANA, "x", 10);
            rejectedWithoutChange(VersionConflictException.class, () -> store.blocks().delete(ANA, "human", 7));
            store.blocks().delete(ANA, "human", 1);
            assertThat(store.blocks().get(ANA, "human")).isEmpty();
            assertThat(store.blocks().history(ANA, "human")).isEmpty();
            human(ANA, "again", 10);
            assertThat(store.blocks().history(ANA, "human")).hasSize(1);
        }

        @Test
        void listShowsPinnedFirstThenByLabel() {
            store.blocks().create(ANA, NewBlock.builder("zeta").build());
            store.blocks().create(ANA, NewBlock.builder("alpha").build());
            store.blocks().create(ANA, NewBlock.builder("persona").pinned(true).build());
            assertThat(store.blocks().list(ANA)).extracting(Block::label).containsExactly("persona", "alpha", "zeta");
        }

        @Test
        void restoreUndoesAnEditAsANewVersion() {
            human(ANA, "good", 100);
            store.blocks().replace(ANA, "human", "oops", BlockStore.ANY_VERSION);
            Block restored = store.blocks().restore(ANA, "human", 1, 2);
            assertThat(restored.value()).isEqualTo("good");
            assertThat(restored.version()).isEqualTo(3);
            assertThat(store.blocks().history(ANA, "human")).extracting(BlockVersion::value).containsExactly("good", "oops", "good");
            assertThat(rejectedWithoutChange(NotFoundException.class,
                    () -> store.blocks().restore(ANA, "human", 9, BlockStore.ANY_VERSION)))
                    .hasMessage("Block 'human' has no version 9; its versions run from 1 to 3.");
        }

        @Test
        void fieldsRoundTrip() {
            Block b = store.blocks().create(ANA, NewBlock.builder("tasks").description("Open tasks").value("- a")
                    .limit(321).type(BlockType.WORKING).permission(MemoryPermission.APPEND).pinned(true).build());
            Block read = store.blocks().get(ANA, "tasks").orElseThrow();
            assertThat(read).isEqualTo(b);
            assertThat(read.type()).isEqualTo(BlockType.WORKING);
            assertThat(read.permission()).isEqualTo(MemoryPermission.APPEND);
            assertThat(read.limit()).isEqualTo(321);
            assertThat(read.pinned()).isTrue();
            assertThat(read.createdAt()).isEqualTo(read.updatedAt());
        }
    }

    @Nested
    class Sharing {
        @Test
        void sharedBlockIsSeenWithTheSharesPermission() {
            human(ANA, "Ana", 100);
            store.blocks().share(ANA, "human", "coach", MemoryPermission.READ_ONLY);
            Block seen = store.blocks().get(ANA_COACH, "human").orElseThrow();
            assertThat(seen.permission()).isEqualTo(MemoryPermission.READ_ONLY);
            assertThat(seen.isShared(ANA_COACH)).isTrue();
            assertThat(seen.ownerAgentId()).isEqualTo("helper");
            assertThat(store.blocks().get(ANA, "human").orElseThrow().permission()).isEqualTo(MemoryPermission.READ_WRITE);
            assertThat(store.blocks().list(ANA_COACH)).extracting(Block::label).containsExactly("human");
            assertThat(store.stats(ANA_COACH).blocks()).isEqualTo(1);
        }

        @Test
        void editsThroughAShareAreSeenByTheOwner() {
            human(ANA, "Ana", 100);
            store.blocks().share(ANA, "human", "coach", MemoryPermission.APPEND);
            store.blocks().append(ANA_COACH, "human", "; runs", BlockStore.ANY_VERSION);
            assertThat(store.blocks().get(ANA, "human").orElseThrow().value()).isEqualTo("Ana; runs");
        }

        @Test
        void unshareHidesTheBlockAgain() {
            human(ANA, "Ana", 100);
            store.blocks().share(ANA, "human", "coach", MemoryPermission.READ_WRITE);
            assertThat(store.blocks().unshare(ANA, "human", "coach")).isTrue();
            assertThat(store.blocks().unshare(ANA, "human", "coach")).isFalse();
            assertThat(store.blocks().get(ANA_COACH, "human")).isEmpty();
        }

        @Test
        void sharingNeverCrossesUsers() {
            human(ANA, "Ana", 100);
            store.blocks().share(ANA, "human", "helper2", MemoryPermission.ADMIN);
            assertThat(store.blocks().get(Scope.of("ben", "helper2"), "human")).isEmpty();
            assertThat(store.blocks().get(BEN, "human")).isEmpty();
        }

        @Test
        void labelClashesAreRejected() {
            human(ANA, "Ana", 100);
            human(ANA_COACH, "coach's own", 100);
            rejectedWithoutChange(DuplicateException.class,
                    () -> store.blocks().share(ANA, "human", "coach", MemoryPermission.READ_ONLY));
            store.blocks().create(ANA, NewBlock.builder("plan").build());
            store.blocks().share(ANA, "plan", "coach", MemoryPermission.READ_ONLY);
            rejectedWithoutChange(DuplicateException.class, () -> store.blocks().create(ANA_COACH, NewBlock.builder("plan").build()));
            assertThatThrownBy(() -> store.blocks().share(ANA, "plan", "helper", MemoryPermission.ADMIN))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void onlyTheOwnerCanShareOrArchive() {
            human(ANA, "Ana", 100);
            store.blocks().share(ANA, "human", "coach", MemoryPermission.ADMIN);
            rejectedWithoutChange(NotFoundException.class,
                    () -> store.blocks().share(ANA_COACH, "human", "third", MemoryPermission.ADMIN));
            rejectedWithoutChange(NotFoundException.class, () -> store.blocks().archive(ANA_COACH, "human", false));
        }

        @Test
        void deletingTheBlockEndsItsShares() {
            human(ANA, "Ana", 100);
            store.blocks().share(ANA, "human", "coach", MemoryPermission.READ_ONLY);
            store.blocks().delete(ANA, "human", BlockStore.ANY_VERSION);
            assertThat(store.blocks().get(ANA_COACH, "human")).isEmpty();
            human(ANA_COACH, "now mine", 100);
        }
    }

    @Nested
    class ArchiveAndLoad {
        @Test
        void archiveMovesABlockIntoArchivalMemory() {
            human(ANA, "Ana likes tea", 100);
            ArchivalEntry e = store.blocks().archive(ANA, "human", false);
            assertThat(e.label()).contains("human");
            assertThat(e.content()).isEqualTo("Ana likes tea");
            assertThat(store.blocks().get(ANA, "human")).isEmpty();
            assertThat(store.archival().getByLabel(ANA, "human")).contains(e);
        }

        @Test
        void archivingAgainOverwritesTheEntryOfThatLabel() {
            human(ANA, "first", 100);
            ArchivalEntry first = store.blocks().archive(ANA, "human", true);
            store.blocks().replace(ANA, "human", "second", BlockStore.ANY_VERSION);
            ArchivalEntry second = store.blocks().archive(ANA, "human", true);
            assertThat(second.id()).isEqualTo(first.id());
            assertThat(second.content()).isEqualTo("second");
            assertThat(store.archival().count(ANA)).isEqualTo(1);
            assertThat(store.blocks().get(ANA, "human")).isPresent();
        }

        @Test
        void loadingUnderTheSameLabelCopiesTheEntryAndKeepsItWithItsTags() {
            ArchivalEntry entry = store.archival().insert(ANA, NewArchivalEntry.labelled("trip", "Lisbon in May", List.of("travel")));
            Block b = store.blocks().load(ANA, "trip", "trip", 200);
            assertThat(b.type()).isEqualTo(BlockType.WORKING);
            assertThat(b.value()).isEqualTo("Lisbon in May");
            assertThat(store.archival().getByLabel(ANA, "trip")).contains(entry);
        }

        @Test
        void archivingALoadedBlockAgainUpdatesItsEntryInPlace() {
            ArchivalEntry entry = store.archival().insert(ANA, NewArchivalEntry.labelled("trip", "Lisbon in May", List.of("travel")));
            store.blocks().load(ANA, "trip", "trip", 200);
            store.blocks().append(ANA, "trip", "; hotel booked", BlockStore.ANY_VERSION);
            ArchivalEntry archived = store.blocks().archive(ANA, "trip", false);
            assertThat(archived.id()).isEqualTo(entry.id());
            assertThat(archived.tags()).containsExactly("travel");
            assertThat(archived.content()).isEqualTo("Lisbon in May; hotel booked");
            assertThat(store.archival().count(ANA)).isEqualTo(1);
            assertThat(store.blocks().get(ANA, "trip")).isEmpty();
        }

        @Test
        void loadingUnderAnotherLabelKeepsTheEntry() {
            store.archival().insert(ANA, NewArchivalEntry.labelled("trip", "Lisbon in May", List.of()));
            store.blocks().load(ANA, "trip", "current_trip", 200);
            assertThat(store.archival().getByLabel(ANA, "trip")).isPresent();
            assertThat(store.blocks().get(ANA, "current_trip")).isPresent();
        }

        @Test
        void loadFailuresChangeNothing() {
            store.archival().insert(ANA, NewArchivalEntry.labelled("trip", "Lisbon in May", List.of()));
            human(ANA, "x", 10);
            rejectedWithoutChange(NotFoundException.class, () -> store.blocks().load(ANA, "nope", "nope", 100));
            rejectedWithoutChange(DuplicateException.class, () -> store.blocks().load(ANA, "trip", "human", 100));
            LimitExceededException e = rejectedWithoutChange(LimitExceededException.class,
                    () -> store.blocks().load(ANA, "trip", "trip", 5));
            assertThat(e.attemptedSize()).isEqualTo(13);
            assertThat(store.archival().getByLabel(ANA, "trip")).isPresent();
            assertThat(store.blocks().get(ANA, "trip")).isEmpty();
        }

        @Test
        void swapArchivesOneBlockAndLoadsAnother() {
            human(ANA, "Ana", 100);
            store.archival().insert(ANA, NewArchivalEntry.labelled("project", "Engram launch", List.of()));
            BlockStore.Swap swap = store.blocks().swap(ANA, "human", "project", 100);
            assertThat(swap.archived().content()).isEqualTo("Ana");
            assertThat(swap.loaded().value()).isEqualTo("Engram launch");
            assertThat(store.blocks().list(ANA)).extracting(Block::label).containsExactly("project");
            assertThat(store.archival().getByLabel(ANA, "human")).isPresent();
            assertThat(store.archival().getByLabel(ANA, "project")).as("the loaded entry stays").isPresent();
        }

        @Test
        void aFailedSwapChangesNothing() {
            Block human = human(ANA, "Ana", 100);
            store.archival().insert(ANA, NewArchivalEntry.labelled("big", "x".repeat(500), List.of()));
            rejectedWithoutChange(NotFoundException.class, () -> store.blocks().swap(ANA, "human", "missing", 100));
            rejectedWithoutChange(LimitExceededException.class, () -> store.blocks().swap(ANA, "human", "big", 100));
            assertThat(store.blocks().get(ANA, "human")).contains(human);
            assertThat(store.archival().getByLabel(ANA, "human")).isEmpty();
            assertThat(store.archival().getByLabel(ANA, "big")).isPresent();
        }
    }

    @Nested
    class Archival {
        @Test
        void insertedEntriesReadBackByIdAndLabelNewestFirst() {
            ArchivalEntry a = store.archival().insert(ANA, NewArchivalEntry.of("first fact"));
            ArchivalEntry b = store.archival().insert(ANA, NewArchivalEntry.labelled("b", "second fact", List.of("x", "y")));
            assertThat(a.id()).matches("archival-[0-9a-f-]{36}");
            assertThat(store.archival().get(ANA, a.id())).contains(a);
            assertThat(store.archival().getByLabel(ANA, "b")).contains(b);
            assertThat(store.archival().list(ANA, 0, 10)).containsExactly(b, a);
            assertThat(store.archival().list(ANA, 1, 10)).containsExactly(a);
            assertThat(store.archival().count(ANA)).isEqualTo(2);
        }

        @Test
        void duplicateLabelsAreRejectedAndABatchIsAllOrNothing() {
            store.archival().insert(ANA, NewArchivalEntry.labelled("a", "x", List.of()));
            rejectedWithoutChange(DuplicateException.class,
                    () -> store.archival().insert(ANA, NewArchivalEntry.labelled("a", "y", List.of())));
            rejectedWithoutChange(DuplicateException.class, () -> store.archival().insertAll(ANA, List.of(
                    NewArchivalEntry.of("fine"), NewArchivalEntry.labelled("c", "1", List.of()),
                    NewArchivalEntry.labelled("c", "2", List.of()))));
            assertThat(store.archival().count(ANA)).isEqualTo(1);
        }

        @Test
        void appendExtendsALabelledEntry() {
            store.archival().insert(ANA, NewArchivalEntry.labelled("log", "day 1", List.of()));
            assertThat(store.archival().append(ANA, "log", "\nday 2").content()).isEqualTo("day 1\nday 2");
            rejectedWithoutChange(NotFoundException.class, () -> store.archival().append(ANA, "nope", "x"));
        }

        @Test
        void deleteRemovesAndReportsWhetherItExisted() {
            ArchivalEntry a = store.archival().insert(ANA, NewArchivalEntry.of("fact"));
            assertThat(store.archival().delete(ANA, a.id())).isTrue();
            assertThat(store.archival().delete(ANA, a.id())).isFalse();
            assertThat(store.archival().get(ANA, a.id())).isEmpty();
        }

        @Test
        void badInputIsRejected() {
            assertThatThrownBy(() -> NewArchivalEntry.of(" ")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("archival content must not be null or blank");
            assertThatThrownBy(() -> store.archival().list(ANA, -1, 5)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.archival().list(ANA, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Nested
    class Agents {
        @Test
        void createdAgentReadsBackByIdAndName() {
            AgentRecord created = store.agents().create(ANA, "Helper", "{\"v\":1}");
            assertThat(store.agents().get(ANA)).contains(created);
            assertThat(store.agents().findByName("ana", "Helper")).contains(created);
            assertThat(created.createdAt()).isEqualTo(created.updatedAt());
        }

        @Test
        void aDuplicateIdIsRejectedAndTheFirstAgentUnchanged() {
            AgentRecord first = store.agents().create(ANA, "Helper", "{\"v\":1}");
            assertThatThrownBy(() -> store.agents().create(ANA, "Other", "{}"))
                    .isInstanceOf(DuplicateException.class).hasMessageContaining("id 'helper'");
            assertThat(store.agents().list("ana")).containsExactly(first);
        }

        @Test
        void severalAgentsOfAUserMayShareANameAndAreFoundOldestFirst() {
            ManualClock clock = new ManualClock(java.time.Instant.parse("2026-01-01T00:00:00Z"));
            MemoryStore clocked = MemoryStore.over(store.backend(), clock);
            AgentRecord first = clocked.agents().create(ANA, "Helper", "{\"v\":1}");
            clock.advance(java.time.Duration.ofSeconds(1));
            AgentRecord second = clocked.agents().create(ANA_COACH, "Helper", "{\"v\":2}");
            assertThat(store.agents().findByName("ana", "Helper")).containsExactly(first, second);
            assertThat(store.agents().list("ana")).containsExactlyInAnyOrder(first, second);
            assertThat(store.agents().findByName("ana", "Nobody")).isEmpty();
            assertThat(store.agents().findByName("ben", "Helper")).isEmpty();
        }

        @Test
        void namesAndIdsAreScopedPerUser() {
            store.agents().create(ANA, "Helper", "{}");
            store.agents().create(BEN, "Helper", "{}");
            assertThat(store.agents().list("ana")).extracting(AgentRecord::scope).containsExactly(ANA);
            assertThat(store.agents().list("ben")).extracting(AgentRecord::scope).containsExactly(BEN);
            assertThat(store.agents().get(Scope.of("ben", "coach"))).isEmpty();
        }

        @Test
        void updateReplacesDefinitionAndMayTakeAnotherAgentsName() {
            store.agents().create(ANA, "Helper", "{\"v\":1}");
            AgentRecord coach = store.agents().create(ANA_COACH, "Coach", "{}");
            AgentRecord updated = store.agents().update(ANA, "Helper 2", "{\"v\":2}");
            assertThat(store.agents().get(ANA)).contains(updated);
            assertThat(updated.definition()).isEqualTo("{\"v\":2}");
            AgentRecord renamed = store.agents().update(ANA, "Coach", "{\"v\":3}");
            assertThat(store.agents().findByName("ana", "Coach")).extracting(AgentRecord::scope).containsExactlyInAnyOrder(ANA_COACH, ANA);
            assertThat(store.agents().get(ANA_COACH)).contains(coach);
            assertThatThrownBy(() -> store.agents().update(BEN, "Helper", "{}"))
                    .isInstanceOf(NotFoundException.class);
            assertThat(store.agents().get(ANA)).contains(renamed);
        }

        @Test
        void blankNameOrDefinitionIsRejected() {
            assertThatThrownBy(() -> store.agents().create(ANA, " ", "{}")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.agents().create(ANA, "Helper", "")).isInstanceOf(IllegalArgumentException.class);
            assertThat(store.agents().list("ana")).isEmpty();
        }

        @Test
        void deleteRemovesTheDefinitionButKeepsTheMemory() {
            store.agents().create(ANA, "Helper", "{}");
            human(ANA, "Name: Ana", 100);
            assertThat(store.agents().delete(ANA)).isTrue();
            assertThat(store.agents().delete(ANA)).isFalse();
            assertThat(store.agents().get(ANA)).isEmpty();
            assertThat(store.blocks().get(ANA, "human")).isPresent();
        }
    }

    @Nested
    class Notes {
        @Test
        void saveUpdateDeleteKeepTheId() {
            Note n = store.notes().save("ana", "Prefers mornings");
            assertThat(n.id()).matches("note-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
            Note updated = store.notes().update("ana", n.id(), "Prefers evenings");
            assertThat(updated.id()).isEqualTo(n.id());
            assertThat(updated.createdAt()).isEqualTo(n.createdAt());
            assertThat(store.notes().get("ana", n.id())).contains(updated);
            assertThat(store.notes().list("ana", 0, 10)).containsExactly(updated);
            assertThat(store.notes().count("ana")).isEqualTo(1);
            assertThat(store.notes().delete("ana", n.id())).isTrue();
            assertThat(store.notes().get("ana", n.id())).isEmpty();
        }

        @Test
        void aNoteBelongsToItsUserOnly() {
            Note n = store.notes().save("ana", "secret");
            assertThat(store.notes().get("ben", n.id())).isEmpty();
            assertThat(store.notes().list("ben", 0, 10)).isEmpty();
            assertThat(rejectedWithoutChange(NotFoundException.class, () -> store.notes().update("ben", n.id(), "mine now")))
                    .hasMessage("There is no note '" + n.id() + "' for this user.");
            assertThat(store.notes().delete("ben", n.id())).isFalse();
            assertThat(store.notes().get("ana", n.id())).contains(n);
        }

        @Test
        void blankNotesAreRejected() {
            rejectedWithoutChange(IllegalArgumentException.class, () -> store.notes().save("ana", "  "));
            Note n = store.notes().save("ana", "x");
            rejectedWithoutChange(IllegalArgumentException.class, () -> store.notes().update("ana", n.id(), ""));
        }
    }

    @Nested
    class Messages {
        @Test
        void appendedMessagesListInOrderWithTheirToolCalls() {
            List<ConversationMessage> turn = store.messages().appendAll(ANA, List.of(
                    NewMessage.user("s1", "What's the weather?"),
                    NewMessage.assistant("s1", "", List.of(new MessageToolCall("call_1", "weather", "{\"city\":\"Lisbon\"}"))),
                    NewMessage.tool("s1", "call_1", "sunny")));
            assertThat(turn.get(0).id()).isLessThan(turn.get(1).id());
            assertThat(turn.get(1).id()).isLessThan(turn.get(2).id());
            List<ConversationMessage> listed = store.messages().list(ANA, MessageQuery.all());
            assertThat(listed).isEqualTo(turn);
            assertThat(listed.get(1).toolCalls()).containsExactly(new MessageToolCall("call_1", "weather", "{\"city\":\"Lisbon\"}"));
            assertThat(listed.get(2).toolCallId()).contains("call_1");
            assertThat(store.messages().get(ANA, turn.get(0).id())).contains(turn.get(0));
            assertThat(store.messages().count(ANA)).isEqualTo(3);
        }

        @Test
        void listFiltersBySessionIdRangeAndNewest() {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                ids.add(store.messages().append(ANA, NewMessage.user(i < 3 ? "s1" : "s2", "m" + i)).id());
            }
            assertThat(store.messages().list(ANA, MessageQuery.all().withSession("s2"))).extracting(ConversationMessage::content)
                    .containsExactly("m3", "m4", "m5");
            assertThat(store.messages().list(ANA, MessageQuery.all().withIdRange(ids.get(1), ids.get(4))))
                    .extracting(ConversationMessage::content).containsExactly("m2", "m3");
            assertThat(store.messages().list(ANA, MessageQuery.all().newest(2))).extracting(ConversationMessage::content)
                    .containsExactly("m4", "m5");
            assertThat(store.messages().list(ANA, MessageQuery.all().withLimit(2))).extracting(ConversationMessage::content)
                    .containsExactly("m0", "m1");
        }

        @Test
        void listFiltersByTimeRange() {
            ConversationMessage m = store.messages().append(ANA, NewMessage.user("s", "hello"));
            Instant t = m.createdAt();
            assertThat(store.messages().list(ANA, MessageQuery.all().withTimeRange(t, t.plusMillis(1)))).containsExactly(m);
            assertThat(store.messages().list(ANA, MessageQuery.all().withTimeRange(t.plusMillis(1), t.plusSeconds(9)))).isEmpty();
            assertThat(store.messages().list(ANA, MessageQuery.all().withTimeRange(t.minusSeconds(9), t))).isEmpty();
        }

        @Test
        void evictedMessagesLeaveTheContextButStayInRecall() {
            List<ConversationMessage> ms = store.messages().appendAll(ANA, List.of(
                    NewMessage.user("s", "a"), NewMessage.user("s", "b"), NewMessage.user("s", "c")));
            ConversationMessage bens = store.messages().append(BEN, NewMessage.user("s", "ben's"));
            assertThat(store.messages().markOutOfContext(ANA, List.of(ms.get(0).id(), ms.get(1).id(), bens.id()))).isEqualTo(2);
            assertThat(store.messages().markOutOfContext(ANA, List.of(ms.get(0).id()))).isZero();
            assertThat(store.messages().list(ANA, MessageQuery.inContext())).extracting(ConversationMessage::content)
                    .containsExactly("c");
            assertThat(store.messages().list(ANA, MessageQuery.all())).hasSize(3);
            assertThat(store.messages().get(BEN, bens.id()).orElseThrow().inContext()).isTrue();
            MemoryStats stats = store.stats(ANA);
            assertThat(stats.messages()).isEqualTo(3);
            assertThat(stats.messagesInContext()).isEqualTo(1);
        }

        @Test
        void malformedMessagesAreRejected() {
            assertThatThrownBy(() -> new NewMessage("s", MessageRole.TOOL, "x", List.of(), Optional.empty(), Optional.of(ToolOutcome.OK)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("a tool message needs the id of the tool call it answers");
            assertThatThrownBy(() -> new NewMessage("s", MessageRole.USER, "x", List.of(new MessageToolCall("1", "t", "{}")),
                    Optional.empty(), Optional.empty())).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> NewMessage.user(" ", "x")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new NewMessage("s", MessageRole.TOOL, "x", List.of(), Optional.of("c1"), Optional.empty()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("a tool message needs the outcome of the call it answers");
            assertThatThrownBy(() -> new NewMessage("s", MessageRole.USER, "x", List.of(), Optional.empty(), Optional.of(ToolOutcome.OK)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("only tool messages carry a tool outcome, not USER");
            assertThat(store.messages().list(ANA, MessageQuery.all())).isEmpty();
        }

        @Test
        void aToolMessageKeepsItsCallsStatusAndEffectsWhateverItsText() {
            store.messages().append(ANA, NewMessage.assistant("s", "", List.of(new MessageToolCall("c1", "grep", "{}"),
                    new MessageToolCall("c2", "say", "{}"), new MessageToolCall("c3", "edit", "{}"), new MessageToolCall("c4", "x", "{}"))));
            store.messages().appendAll(ANA, List.of(
                    NewMessage.tool("s", "c1", "Error: a line of the log, returned as data"),
                    NewMessage.tool("s", "c2", "{\"success\": true}", ToolOutcome.of(ToolOutcome.Status.OK,
                            ToolOutcome.Effect.MESSAGE_TO_USER)),
                    NewMessage.tool("s", "c3", "Block edited", ToolOutcome.of(ToolOutcome.Status.OK, ToolOutcome.Effect.MEMORY_EDITED,
                            ToolOutcome.Effect.AGENT_ANSWERED)),
                    NewMessage.tool("s", "c4", "Not allowed by the tool rules", ToolOutcome.of(ToolOutcome.Status.REFUSED))));

            List<ConversationMessage> stored = store.messages().list(ANA, MessageQuery.all());

            assertThat(stored.getFirst().toolOutcome()).isEmpty();
            assertThat(stored.subList(1, 5)).extracting(m -> m.toolOutcome().orElseThrow()).containsExactly(
                    ToolOutcome.OK,
                    ToolOutcome.of(ToolOutcome.Status.OK, ToolOutcome.Effect.MESSAGE_TO_USER),
                    ToolOutcome.of(ToolOutcome.Status.OK, ToolOutcome.Effect.MEMORY_EDITED, ToolOutcome.Effect.AGENT_ANSWERED),
                    ToolOutcome.of(ToolOutcome.Status.REFUSED));
            assertThat(stored.subList(1, 5)).extracting(ConversationMessage::failedToolCall).containsExactly(false, false, false, true);
            assertThat(store.messages().get(ANA, stored.get(4).id()).orElseThrow().toolOutcome())
                    .contains(ToolOutcome.of(ToolOutcome.Status.REFUSED));
        }
    }

    @Nested
    class StatsAndChanges {
        @Test
        void statsCountTheScope() {
            human(ANA, "x", 10);
            store.archival().insert(ANA, NewArchivalEntry.of("f"));
            store.notes().save("ana", "n");
            ConversationMessage last = store.messages().append(ANA, NewMessage.user("s", "hi"));
            store.messages().append(BEN, NewMessage.user("s", "other"));
            MemoryStats s = store.stats(ANA);
            assertThat(s).usingRecursiveComparison().ignoringFields("firstInContextId")
                    .isEqualTo(new MemoryStats(1, 1, 1, 1, 1, Optional.of(last.createdAt())));
            // the oldest in-context message, where the backend reads it with the counts
            assertThat(s.firstInContextId()).satisfiesAnyOf(f -> assertThat(f).isEmpty(), f -> assertThat(f).hasValue(last.id()));
            assertThat(store.stats(Scope.of("nobody", "none"))).isEqualTo(new MemoryStats(0, 0, 0, 0, 0, Optional.empty()));
        }

        @Test
        void everyWriteAppendsToTheChangeLogInOrder() {
            long start = store.changes().lastSeq();
            human(ANA, "x", 100);
            store.blocks().append(ANA, "human", "y", BlockStore.ANY_VERSION);
            ArchivalEntry e = store.archival().insert(ANA, NewArchivalEntry.of("f"));
            Note n = store.notes().save("ana", "n");
            ConversationMessage m = store.messages().append(ANA, NewMessage.user("s", "hi"));
            store.archival().delete(ANA, e.id());
            store.blocks().delete(ANA, "human", BlockStore.ANY_VERSION);
            List<ChangeEvent> events = store.changes().since(start, 100);
            assertThat(events).extracting(ChangeEvent::entity, ChangeEvent::id, ChangeEvent::op).containsExactly(
                    org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.BLOCK, "human", ChangeEvent.Op.UPSERT),
                    org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.BLOCK, "human", ChangeEvent.Op.UPSERT),
                    org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.ARCHIVAL, e.id(), ChangeEvent.Op.UPSERT),
                    org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.NOTE, n.id(), ChangeEvent.Op.UPSERT),
                    org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.MESSAGE, Long.toString(m.id()), ChangeEvent.Op.UPSERT),
                    org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.ARCHIVAL, e.id(), ChangeEvent.Op.DELETE),
                    org.assertj.core.groups.Tuple.tuple(ChangeEvent.Entity.BLOCK, "human", ChangeEvent.Op.DELETE));
            for (int i = 1; i < events.size(); i++) {
                assertThat(events.get(i).seq()).isGreaterThan(events.get(i - 1).seq());
            }
            assertThat(events.get(0).userId()).isEqualTo("ana");
            assertThat(events.get(0).agentId()).contains("helper");
            assertThat(events.get(3).agentId()).isEmpty();
            assertThat(store.changes().lastSeq()).isEqualTo(events.get(events.size() - 1).seq());
            assertThat(store.changes().since(start, 2)).hasSize(2);
            assertThat(store.changes().since(store.changes().lastSeq(), 10)).isEmpty();
        }

        @Test
        void theKnownLastSequenceFollowsEveryWriteMadeThroughTheStore() {
            assertThat(store.changes().knownLastSeq()).isEqualTo(store.changes().lastSeq());
            store.archival().insert(ANA, NewArchivalEntry.of("f"));
            assertThat(store.changes().knownLastSeq()).isEqualTo(store.changes().lastSeq());
            store.notes().save("ana", "n");
            long afterNote = store.changes().knownLastSeq();
            assertThat(afterNote).isEqualTo(store.changes().lastSeq());
            human(ANA, "x", 5);
            long afterBlock = store.changes().knownLastSeq();
            assertThatThrownBy(() -> store.blocks().append(ANA, "human", "far too long", BlockStore.ANY_VERSION))
                    .isInstanceOf(MemoryException.class);
            assertThat(store.changes().knownLastSeq()).as("after a rejected write").isEqualTo(afterBlock)
                    .isEqualTo(store.changes().lastSeq()).isGreaterThan(afterNote);
            store.messages().append(ANA, NewMessage.user("s", "hi"));
            assertThat(store.changes().knownLastSeq()).isEqualTo(store.changes().lastSeq()).isGreaterThan(afterBlock);
        }

        @Test
        void theStoreKeepsOneIdentity() {
            String id = store.id();
            assertThat(id).isNotNull();
            store.notes().save("ana", "n");
            assertThat(store.id()).isEqualTo(id);
        }

        @Test
        void aClosedStoreRefusesWork() {
            store.close();
            assertThatThrownBy(() -> store.blocks().list(ANA)).isInstanceOf(MemoryException.class)
                    .hasMessage("The memory store is closed.");
            store.close();
        }
    }

    /** An attacker knows other users' ids and labels and tries them from its own scope. */
    @Nested
    class Isolation {
        @Test
        void noScopeEverSeesAnotherScopesMemory() {
            Random random = new Random(42);
            List<Scope> scopes = new ArrayList<>();
            for (int u = 0; u < 4; u++) {
                for (int a = 0; a < 3; a++) {
                    scopes.add(Scope.of("user" + u, "agent" + a));
                }
            }
            record Owned(Scope scope, String archivalId, long messageId, String noteId, String secret) {
            }
            List<Owned> owned = new ArrayList<>();
            for (Scope s : scopes) {
                String secret = "secret-of-" + s.userId() + "-" + s.agentId();
                store.blocks().create(s, NewBlock.builder("human").value(secret).build());
                store.blocks().create(s, NewBlock.builder("label-" + random.nextInt(3)).value(secret).build());
                String archivalId = store.archival().insert(s, NewArchivalEntry.labelled("shared-label", secret, List.of())).id();
                long messageId = store.messages().append(s, NewMessage.user("session", secret)).id();
                String noteId = store.notes().save(s.userId(), secret + "-note-" + s.agentId()).id();
                owned.add(new Owned(s, archivalId, messageId, noteId, secret));
            }
            int probes = 0;
            for (Scope attacker : scopes) {
                for (Owned victim : owned) {
                    if (victim.scope().equals(attacker)) {
                        continue;
                    }
                    probes++;
                    assertThat(store.archival().get(attacker, victim.archivalId())).isEmpty();
                    assertThat(store.archival().delete(attacker, victim.archivalId())).isFalse();
                    assertThat(store.messages().get(attacker, victim.messageId())).isEmpty();
                    assertThat(store.messages().markOutOfContext(attacker, List.of(victim.messageId()))).isZero();
                    if (!victim.scope().userId().equals(attacker.userId())) {
                        assertThat(store.notes().get(attacker.userId(), victim.noteId())).isEmpty();
                        assertThat(store.notes().delete(attacker.userId(), victim.noteId())).isFalse();
                        assertThatThrownBy(() -> store.notes().update(attacker.userId(), victim.noteId(), "x"))
                                .isInstanceOf(NotFoundException.class);
                    }
                }
                String mine = "secret-of-" + attacker.userId() + "-" + attacker.agentId();
                assertThat(store.blocks().list(attacker)).allSatisfy(b -> assertThat(b.value()).isEqualTo(mine));
                assertThat(store.blocks().get(attacker, "human").orElseThrow().value()).isEqualTo(mine);
                assertThat(store.archival().list(attacker, 0, 100)).allSatisfy(e -> assertThat(e.content()).isEqualTo(mine));
                assertThat(store.archival().getByLabel(attacker, "shared-label").orElseThrow().content()).isEqualTo(mine);
                assertThat(store.messages().list(attacker, MessageQuery.all())).allSatisfy(
                        m -> assertThat(m.content()).isEqualTo(mine));
                assertThat(store.notes().list(attacker.userId(), 0, 100)).allSatisfy(
                        n -> assertThat(n.content()).startsWith("secret-of-" + attacker.userId() + "-"));
                for (int i = 0; i < 20; i++) {
                    Scope random1 = Scope.of("user" + random.nextInt(9), "agent" + random.nextInt(9));
                    String guessedNote = owned.get(random.nextInt(owned.size())).noteId();
                    store.notes().get(random1.userId(), guessedNote).ifPresent(n -> assertThat(n.userId()).isEqualTo(random1.userId()));
                    store.blocks().get(random1, "human").ifPresent(
                            b -> assertThat(b.value()).isEqualTo("secret-of-" + random1.userId() + "-" + random1.agentId()));
                }
            }
            assertThat(probes).isEqualTo(12 * 11);
            for (Owned o : owned) {
                assertThat(store.archival().get(o.scope(), o.archivalId())).isPresent();
                assertThat(store.messages().get(o.scope(), o.messageId()).orElseThrow().inContext()).isTrue();
                assertThat(store.notes().get(o.scope().userId(), o.noteId())).isPresent();
            }
        }
    }

    /** One write of {@code thread}'s {@code i}-th turn. */
    @FunctionalInterface
    protected interface Write {
        void run(int thread, int i);
    }

    /** Starts {@code threads} writers at the same moment, each writing {@code perThread} times, and waits for all. */
    protected static void atOnce(int threads, int perThread, Write write) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        write.run(thread, i);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
    }

    @Nested
    class Concurrency {
        @Test
        void appendsFromSixteenThreadsLoseNothing() throws Exception {
            int threads = 16;
            int perThread = 25;
            human(ANA, "", 100_000);
            atOnce(threads, perThread, (thread, i) ->
                    store.blocks().append(ANA, "human", "[" + thread + ":" + i + "]", BlockStore.ANY_VERSION));
            Block b = store.blocks().get(ANA, "human").orElseThrow();
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < perThread; i++) {
                    assertThat(b.value()).contains("[" + t + ":" + i + "]");
                }
            }
            assertThat(b.version()).isEqualTo(1 + threads * perThread);
            assertThat(store.blocks().history(ANA, "human")).hasSize(1 + threads * perThread);
        }

        @Test
        void appendedLinesFromEightThreadsNeverConflictAndEachIsALine() throws Exception {
            int threads = 8;
            int perThread = 25;
            human(ANA, "", 100_000);
            atOnce(threads, perThread, (thread, i) -> store.blocks().appendLine(ANA, "human", "line " + thread + ":" + i));
            List<String> lines = List.of(store.blocks().get(ANA, "human").orElseThrow().value().split("\n", -1));
            assertThat(lines).hasSize(threads * perThread).allMatch(l -> l.matches("line \\d+:\\d+"));
        }

        @Test
        void racingOptimisticReplacesHaveOneWinnerAndClearConflicts() throws Exception {
            human(ANA, "v1", 100);
            int racers = 8;
            AtomicInteger wins = new AtomicInteger();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            try (ExecutorService pool = Executors.newFixedThreadPool(racers)) {
                CountDownLatch start = new CountDownLatch(1);
                for (int r = 0; r < racers; r++) {
                    int racer = r;
                    pool.submit(() -> {
                        start.await();
                        try {
                            store.blocks().replace(ANA, "human", "racer " + racer, 1);
                            wins.incrementAndGet();
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                        return null;
                    });
                }
                start.countDown();
            }
            assertThat(wins).hasValue(1);
            assertThat(failures).hasSize(racers - 1).allSatisfy(e -> assertThat(e).isInstanceOf(VersionConflictException.class));
            assertThat(store.blocks().get(ANA, "human").orElseThrow().version()).isEqualTo(2);
        }

        @Test
        void readersRunWhileWritersWrite() throws Exception {
            human(ANA, "", 1_000_000);
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger reads = new AtomicInteger();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            try (ExecutorService pool = Executors.newFixedThreadPool(6)) {
                for (int w = 0; w < 2; w++) {
                    pool.submit(() -> {
                        try {
                            for (int i = 0; i < 150; i++) {
                                store.blocks().append(ANA, "human", "x", BlockStore.ANY_VERSION);
                                store.messages().append(ANA, NewMessage.user("s", "m" + i));
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                        return null;
                    });
                }
                for (int r = 0; r < 4; r++) {
                    pool.submit(() -> {
                        try {
                            while (writing.get()) {
                                Block b = store.blocks().get(ANA, "human").orElseThrow();
                                // A committed state: the value holds exactly one 'x' per append.
                                assertThat(b.value().length()).isEqualTo(b.version() - 1);
                                store.messages().list(ANA, MessageQuery.all().newest(10));
                                reads.incrementAndGet();
                            }
                        } catch (Throwable e) {
                            failures.add(e);
                        }
                        return null;
                    });
                }
                pool.shutdown();
                // Stop the readers once both writers are done.
                while (store.messages().count(ANA) < 300 && failures.isEmpty()) {
                    Thread.sleep(10);
                }
                writing.set(false);
            }
            assertThat(failures).isEmpty();
            assertThat(reads.get()).isPositive();
            assertThat(store.blocks().get(ANA, "human").orElseThrow().value()).hasSize(300);
        }
    }

    /** Scheduled messages, on a clock the tests move (the same backend under a store with a {@link ManualClock}). */
    @Nested
    class Schedules {
        private static final Instant T0 = Instant.parse("2026-11-22T08:00:00Z");
        private static final java.time.Duration LEASE = java.time.Duration.ofMinutes(5);
        private final ManualClock clock = new ManualClock(T0);
        private MemoryStore clocked;

        @BeforeEach
        void clockedStore() {
            clocked = MemoryStore.over(store.backend(), clock);
        }

        private Schedule once(Scope scope, java.time.Duration in, String message) {
            return clocked.schedules().create(scope, "main", message, ScheduleTiming.once(T0.plus(in)));
        }

        @Test
        void aOneOffFiresOnceWhenDueAndIsThenDone() {
            Schedule s = once(ANA, java.time.Duration.ofMinutes(10), "Remind Ana to call her sister");
            assertThat(s.id()).startsWith("sched-");
            assertThat(s.nextRunAt()).contains(T0.plus(java.time.Duration.ofMinutes(10)));
            assertThat(clocked.schedules().claimDue(LEASE, 10)).as("not yet due").isEmpty();

            clock.advance(java.time.Duration.ofMinutes(10));
            List<Schedule> due = clocked.schedules().claimDue(LEASE, 10);
            assertThat(due).extracting(Schedule::id).containsExactly(s.id());
            assertThat(due.get(0).message()).isEqualTo("Remind Ana to call her sister");
            assertThat(clocked.schedules().claimDue(LEASE, 10)).as("held while it is delivered").isEmpty();

            Schedule done = clocked.schedules().finishRun(due.get(0)).orElseThrow();
            assertThat(done.status()).isEqualTo(Schedule.Status.DONE);
            assertThat(done.runs()).isEqualTo(1);
            assertThat(done.nextRunAt()).isEmpty();
            assertThat(done.lastRunAt()).contains(clock.instant());
            clock.advance(java.time.Duration.ofDays(1));
            assertThat(clocked.schedules().claimDue(LEASE, 10)).isEmpty();
        }

        @Test
        void aClaimWhoseHolderDiedIsDeliveredByTheNextCallerAfterItsLease() {
            Schedule s = once(ANA, java.time.Duration.ofMinutes(1), "ping");
            clock.advance(java.time.Duration.ofMinutes(1));
            assertThat(clocked.schedules().claimDue(LEASE, 10)).hasSize(1);
            clock.advance(LEASE.minusSeconds(1));
            assertThat(clocked.schedules().claimDue(LEASE, 10)).isEmpty();
            clock.advance(java.time.Duration.ofSeconds(1));
            assertThat(clocked.schedules().claimDue(LEASE, 10)).extracting(Schedule::id).containsExactly(s.id());
        }

        @Test
        void aReleasedClaimIsDueAgainAtOnceWithoutARunCounted() {
            Schedule s = once(ANA, java.time.Duration.ofMinutes(1), "ping");
            clock.advance(java.time.Duration.ofMinutes(1));
            Schedule held = clocked.schedules().claimDue(LEASE, 10).get(0);
            clocked.schedules().release(held);
            List<Schedule> again = clocked.schedules().claimDue(LEASE, 10);
            assertThat(again).extracting(Schedule::id).containsExactly(s.id());
            assertThat(again.get(0).runs()).isZero();
        }

        @Test
        void aRecurringScheduleFiresOnceForFiringsMissedAndWaitsForTheNextAfterNow() {
            Schedule s = clocked.schedules().create(ANA, "main", "Hourly check-in",
                    ScheduleTiming.cron("0 * * * *", java.time.ZoneId.of("Europe/Paris")));
            assertThat(s.nextRunAt()).contains(Instant.parse("2026-11-22T09:00:00Z"));
            clock.set(Instant.parse("2026-11-22T11:30:00Z"));  // 9:00, 10:00 and 11:00 passed
            List<Schedule> due = clocked.schedules().claimDue(LEASE, 10);
            assertThat(due).hasSize(1);
            Schedule after = clocked.schedules().finishRun(due.get(0)).orElseThrow();
            assertThat(after.status()).isEqualTo(Schedule.Status.ACTIVE);
            assertThat(after.runs()).isEqualTo(1);
            assertThat(after.nextRunAt()).contains(Instant.parse("2026-11-22T12:00:00Z"));
            assertThat(after.claimedUntil()).isEmpty();
            assertThat(clocked.schedules().claimDue(LEASE, 10)).isEmpty();
        }

        @Test
        void aCancelledScheduleNeverFiresAndARunInFlightDoesNotRevive() {
            Schedule a = once(ANA, java.time.Duration.ofMinutes(5), "a");
            Schedule b = once(ANA, java.time.Duration.ofMinutes(5), "b");
            assertThat(clocked.schedules().cancel("ana", a.id())).isTrue();
            assertThat(clocked.schedules().cancel("ana", a.id())).as("already cancelled").isFalse();
            clock.advance(java.time.Duration.ofMinutes(5));
            List<Schedule> due = clocked.schedules().claimDue(LEASE, 10);
            assertThat(due).extracting(Schedule::id).containsExactly(b.id());
            assertThat(clocked.schedules().cancel("ana", b.id())).isTrue();
            Schedule finished = clocked.schedules().finishRun(due.get(0)).orElseThrow();
            assertThat(finished.status()).isEqualTo(Schedule.Status.CANCELLED);
            assertThat(finished.runs()).isEqualTo(1);
            assertThat(clocked.schedules().list("ana")).extracting(Schedule::status)
                    .containsOnly(Schedule.Status.CANCELLED);
        }

        @Test
        void anotherUsersSchedulesAreNotFoundAndUntouched() {
            Schedule ana = once(ANA, java.time.Duration.ofMinutes(5), "ana's");
            Schedule ben = once(BEN, java.time.Duration.ofMinutes(5), "ben's");
            assertThat(clocked.schedules().list("ana")).extracting(Schedule::id).containsExactly(ana.id());
            assertThat(clocked.schedules().get("ben", ana.id())).isEmpty();
            assertThatThrownBy(() -> clocked.schedules().cancel("ben", ana.id())).isInstanceOf(NotFoundException.class);
            assertThat(clocked.schedules().get("ana", ana.id()).orElseThrow().active()).isTrue();
            clock.advance(java.time.Duration.ofMinutes(5));
            assertThat(clocked.schedules().claimDue(LEASE, 10)).extracting(s -> s.scope().userId())
                    .containsExactlyInAnyOrder("ana", "ben");
            assertThat(clocked.schedules().list(BEN)).extracting(Schedule::id).containsExactly(ben.id());
        }

        @Test
        void aClaimForOneUserLeavesTheOthersDue() {
            once(ANA, java.time.Duration.ofMinutes(5), "ana's");
            Schedule ben = once(BEN, java.time.Duration.ofMinutes(5), "ben's");
            clock.advance(java.time.Duration.ofMinutes(5));
            assertThat(clocked.schedules().claimDue(LEASE, 10, s -> s.userId().equals("ana")))
                    .extracting(s -> s.scope().userId()).containsExactly("ana");
            assertThat(clocked.schedules().claimDue(LEASE, 10)).extracting(Schedule::id).containsExactly(ben.id());
        }

        @Test
        void aCronFiringMoreOftenThanTheMinimumIntervalIsRefusedWithTheMinimumAndNothingIsStored() {
            long seq = store.changes().lastSeq();
            for (String cron : List.of("* * * * *", "*/4 * * * *", "0,1 9 * * *", "58,59 * * * 1", "0,58 0,23 * * *", "0,3 9-17/2 * * 1-5", "5/3 * * * *")) {
                assertThatThrownBy(() -> clocked.schedules().create(ANA, "main", "flood",
                        ScheduleTiming.cron(cron, java.time.ZoneOffset.UTC)))
                        .as(cron).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("schedules may fire at most once every 5 minutes");
            }
            assertThatThrownBy(() -> clocked.schedules().create(ANA, "main", "flood",
                    ScheduleTiming.cron("* * * * *", java.time.ZoneOffset.UTC)))
                    .hasMessage("cron '* * * * *' fires 1 minute apart at times; schedules may fire at most once every 5 minutes: give a cron whose firings are at least that far apart");
            assertThat(clocked.schedules().list("ana")).isEmpty();
            assertThat(store.changes().lastSeq()).isEqualTo(seq);

            assertThat(clocked.schedules().create(ANA, "main", "ok", ScheduleTiming.cron("*/5 * * * *", java.time.ZoneOffset.UTC))
                    .nextRunAt()).contains(T0.plus(java.time.Duration.ofMinutes(5)));
            ScheduleStore relaxed = clocked.schedules().limitedBy(ScheduleLimits.defaults().withMinInterval(java.time.Duration.ofMinutes(1)));
            assertThat(relaxed.limits().minInterval()).isEqualTo(java.time.Duration.ofMinutes(1));
            assertThat(relaxed.create(ANA, "main", "every minute", ScheduleTiming.cron("* * * * *", java.time.ZoneOffset.UTC))
                    .nextRunAt()).contains(T0.plus(java.time.Duration.ofMinutes(1)));
        }

        @Test
        void aOneOffTooFarAheadIsRefusedWithAClearMessageAndNothingIsStored() {
            long seq = store.changes().lastSeq();
            for (Instant far : List.of(Instant.parse("+100000-01-01T00:00:00Z"), Instant.MAX, T0.plus(java.time.Duration.ofDays(5 * 365 + 1)))) {
                assertThatThrownBy(() -> clocked.schedules().create(ANA, "main", "later", ScheduleTiming.once(far)))
                        .as(far.toString()).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("the time " + far + " is more than 1825 days ahead (it is now " + T0
                                + "); schedules may be set at most that far ahead");
            }
            assertThat(clocked.schedules().list("ana")).isEmpty();
            assertThat(store.changes().lastSeq()).isEqualTo(seq);
            assertThat(once(ANA, java.time.Duration.ofDays(5 * 365), "in five years").nextRunAt())
                    .contains(T0.plus(java.time.Duration.ofDays(5 * 365)));
        }

        @Test
        void badSchedulesAreRefusedAndNothingIsStored() {
            assertThatThrownBy(() -> once(ANA, java.time.Duration.ofMinutes(-1), "late"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not in the future");
            assertThatThrownBy(() -> once(ANA, java.time.Duration.ZERO, "now")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> once(ANA, java.time.Duration.ofMinutes(1), " ")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> ScheduleTiming.cron("every monday", java.time.ZoneOffset.UTC))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a Unix cron expression");
            assertThatThrownBy(() -> ScheduleTiming.cron("61 * * * *", java.time.ZoneOffset.UTC))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> clocked.schedules().create(ANA, "main", "never",
                    ScheduleTiming.cron("0 0 30 2 *", java.time.ZoneOffset.UTC)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("never fires");
            assertThat(clocked.schedules().list("ana")).isEmpty();
        }

        @Test
        void anAgentMayHaveAtMostTheLimitWaiting() {
            for (int i = 0; i < ScheduleStore.MAX_ACTIVE_PER_AGENT; i++) {
                once(ANA, java.time.Duration.ofMinutes(1 + i), "r" + i);
            }
            assertThatThrownBy(() -> once(ANA, java.time.Duration.ofHours(5), "one more"))
                    .isInstanceOf(MemoryException.class).hasMessageContaining("cancel one first");
            assertThat(clocked.schedules().list(ANA)).hasSize(ScheduleStore.MAX_ACTIVE_PER_AGENT);
            once(ANA_COACH, java.time.Duration.ofMinutes(1), "another agent has its own room");
            clocked.schedules().cancel("ana", clocked.schedules().list(ANA).get(0).id());
            once(ANA, java.time.Duration.ofHours(5), "after a cancel");
        }

        @Test
        void aScheduleReadsBackExactlyAsCreated() {
            Schedule s = once(ANA, java.time.Duration.ofMinutes(5), "persisted");
            assertThat(clocked.schedules().get("ana", s.id())).contains(s);
            assertThat(clocked.schedules().list(ANA).get(0).timing()).isEqualTo(s.timing());
        }
    }

    /** The server's API keys: shown once, stored hashed, bound to a user or admin, revocable. */
    @Nested
    class Identities {
        @Test
        void anIdentityIsStoredPerUserAndUpdatedInPlace() {
            Identity ana = store.identities().put("ana", "Ana Lima", "user");
            store.identities().put("acme", "Acme Ltd", "org");
            Identity renamed = store.identities().put("ana", "Ana L.", "other");
            assertThat(renamed.createdAt()).isEqualTo(ana.createdAt());
            assertThat(store.identities().get("ana")).contains(renamed);
            assertThat(store.identities().list()).extracting(Identity::userId).containsExactlyInAnyOrder("ana", "acme");
            assertThat(store.identities().list()).hasSize(2);
        }

        @Test
        void createRefusesAnExistingIdentityAndUpdateChangesTheStoredOneInOneWrite() {
            Identity ana = store.identities().create("ana", "Ana", "user", "[1]");
            assertThatThrownBy(() -> store.identities().create("ana", "Other", "org", "[]"))
                    .isInstanceOf(DuplicateException.class).hasMessageContaining("ana");
            assertThat(store.identities().get("ana")).contains(ana);
            Identity changed = store.identities().update("ana", i -> new Identity(i.userId(), "Ana L.", i.type(),
                    i.createdAt(), i.properties().replace("]", ",2]")));
            assertThat(changed.properties()).isEqualTo("[1,2]");
            assertThat(changed.createdAt()).isEqualTo(ana.createdAt());
            assertThat(store.identities().get("ana")).contains(changed);
            assertThatThrownBy(() -> store.identities().update("ana", i -> {
                throw new IllegalArgumentException("refused");
            })).hasMessage("refused");
            assertThat(store.identities().get("ana")).contains(changed);
            assertThatThrownBy(() -> store.identities().update("nobody", i -> i)).isInstanceOf(NotFoundException.class);
            assertThat(store.identities().get("nobody")).isEmpty();
        }

        @Test
        void anIdentitysPropertiesAreReplacedWholeAndKeptThroughARename() {
            store.identities().put("ana", "Ana", "user");
            assertThat(store.identities().get("ana").orElseThrow().properties()).isEqualTo("[]");
            String props = "[{\"key\": \"plan\", \"value\": \"pro\", \"type\": \"string\"}]";
            assertThat(store.identities().putProperties("ana", props).properties()).isEqualTo(props);
            store.identities().put("ana", "Ana L.", "user");
            assertThat(store.identities().get("ana").orElseThrow().properties()).isEqualTo(props);
            assertThatThrownBy(() -> store.identities().putProperties("nobody", "[]")).isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> store.identities().putProperties("ana", "x".repeat(Identity.MAX_PROPERTIES + 1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(store.identities().get("ana").orElseThrow().properties()).isEqualTo(props);
            assertThat(store.identities().get("nobody")).isEmpty();
        }

        @Test
        void anIdentitysFieldsAndPropertiesAreStoredTogetherOrNotAtAll() {
            Identity ana = store.identities().put("ana", "Ana", "user");
            String props = "[{\"key\": \"plan\", \"value\": \"pro\", \"type\": \"string\"}]";
            Identity changed = store.identities().put("ana", "Ana L.", "other", props);
            assertThat(changed.createdAt()).isEqualTo(ana.createdAt());
            assertThat(store.identities().get("ana")).contains(changed);
            assertThat(store.identities().put("acme", "Acme", "org", props).properties()).isEqualTo(props);
            assertThatThrownBy(() -> store.identities().put("ana", "Ana X", "user", "x".repeat(Identity.MAX_PROPERTIES + 1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.identities().put("ana", " ", "user", "[]")).isInstanceOf(IllegalArgumentException.class);
            assertThat(store.identities().get("ana")).contains(changed);
        }

        @Test
        void deletingAnIdentityKeepsTheUsersMemory() {
            human(ANA, "likes tea", 100);
            store.identities().put("ana", "Ana", "user");
            assertThat(store.identities().delete("ana")).isTrue();
            assertThat(store.identities().delete("ana")).isFalse();
            assertThat(store.identities().get("ana")).isEmpty();
            assertThat(store.blocks().get(ANA, "human")).isPresent();
        }

        @Test
        void badIdentitiesAreRefusedAndNothingIsStored() {
            assertThatThrownBy(() -> store.identities().put(" ", "x", "user")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.identities().put("ana", "", "user")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.identities().put("ana", "Ana", "u\u0000")).isInstanceOf(IllegalArgumentException.class);
            assertThat(store.identities().list()).isEmpty();
        }
    }

    /** Runs and their events: each its user's, events in order without gaps, the oldest dropped beyond a bound, purged after they end. */
    @Nested
    class Runs {
        private final ManualClock clock = new ManualClock(Instant.parse("2026-11-25T08:00:00Z"));
        private MemoryStore clocked;

        @BeforeEach
        void clockedStore() {
            clocked = MemoryStore.over(store.backend(), clock);
        }

        private static List<RunEvent> events(long from, long to) {
            List<RunEvent> out = new ArrayList<>();
            for (long seq = from; seq <= to; seq++) {
                out.add(new RunEvent(seq, seq % 2 == 0 ? "" : "error", "{\"seq_id\":" + seq + "}"));
            }
            return out;
        }

        @Test
        void aRunIsRecordedFollowedByItsEventsAndEndedAsItsUsers() {
            Run run = clocked.runs().start(ANA, "default", true);
            assertThat(run.id()).startsWith(Run.ID_PREFIX);
            assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
            assertThat(run.completedAt()).isEmpty();
            assertThat(clocked.runs().get("ana", run.id())).contains(run);
            clocked.runs().append("ana", run.id(), events(1, 3), 100);
            clocked.runs().append("ana", run.id(), events(4, 5), 100);
            assertThat(clocked.runs().events("ana", run.id(), 0, 100)).isEqualTo(events(1, 5));
            assertThat(clocked.runs().events("ana", run.id(), 3, 100)).isEqualTo(events(4, 5));
            assertThat(clocked.runs().events("ana", run.id(), 1, 2)).isEqualTo(events(2, 3));
            assertThat(clocked.runs().lastSeq("ana", run.id())).isEqualTo(5);
            clock.advance(java.time.Duration.ofSeconds(3));
            Run ended = clocked.runs().finish("ana", run.id(), RunStatus.COMPLETED, "end_turn");
            assertThat(ended.status()).isEqualTo(RunStatus.COMPLETED);
            assertThat(ended.stopReason()).isEqualTo("end_turn");
            assertThat(ended.completedAt()).contains(clock.instant());
            assertThat(ended.createdAt()).isEqualTo(run.createdAt());
            assertThat(clocked.runs().get("ana", run.id())).contains(ended);
            // a run that ended stays as it ended
            assertThat(clocked.runs().finish("ana", run.id(), RunStatus.CANCELLED, "cancelled")).isEqualTo(ended);
        }

        @Test
        void theLatestRunOfAConversationIsTheOneStartedLast() {
            Run first = clocked.runs().start(ANA, "default", true);
            clock.advance(java.time.Duration.ofSeconds(1));
            Run other = clocked.runs().start(ANA, "conv-1", false);
            clock.advance(java.time.Duration.ofSeconds(1));
            Run second = clocked.runs().start(ANA, "default", false);
            assertThat(clocked.runs().latest(ANA, "default")).contains(second);
            assertThat(clocked.runs().latest(ANA, "conv-1")).contains(other);
            assertThat(clocked.runs().latest(ANA, "conv-2")).isEmpty();
            assertThat(clocked.runs().latest(Scope.of("ben", "helper"), "default")).isEmpty();
            assertThat(first.background()).isTrue();
            assertThat(second.background()).isFalse();
        }

        @Test
        void anotherUsersRunIsNotThereForThemAndNotChangedByThem() {
            Run anas = clocked.runs().start(ANA, "default", true);
            clocked.runs().append("ana", anas.id(), events(1, 2), 100);
            assertThat(clocked.runs().get("ben", anas.id())).isEmpty();
            assertThatThrownBy(() -> clocked.runs().events("ben", anas.id(), 0, 10)).isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> clocked.runs().append("ben", anas.id(), events(3, 3), 100))
                    .isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> clocked.runs().finish("ben", anas.id(), RunStatus.CANCELLED, "cancelled"))
                    .isInstanceOf(NotFoundException.class);
            assertThat(clocked.runs().get("ana", anas.id())).contains(anas);
            assertThat(clocked.runs().events("ana", anas.id(), 0, 10)).isEqualTo(events(1, 2));
        }

        @Test
        void eventsOutOfOrderOrAfterTheEndAreRefusedAndNothingIsStored() {
            Run run = clocked.runs().start(ANA, "default", true);
            clocked.runs().append("ana", run.id(), events(1, 2), 100);
            assertThatThrownBy(() -> clocked.runs().append("ana", run.id(), events(4, 5), 100))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expects event 3 next");
            assertThatThrownBy(() -> clocked.runs().append("ana", run.id(), List.of(events(3, 3).getFirst(),
                    events(3, 3).getFirst()), 100)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> clocked.runs().finish("ana", run.id(), RunStatus.RUNNING, ""))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(clocked.runs().events("ana", run.id(), 0, 100)).isEqualTo(events(1, 2));
            clocked.runs().finish("ana", run.id(), RunStatus.FAILED, "error");
            assertThatThrownBy(() -> clocked.runs().append("ana", run.id(), events(3, 3), 100))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has ended");
            assertThat(clocked.runs().events("ana", run.id(), 0, 100)).isEqualTo(events(1, 2));
            assertThatThrownBy(() -> new RunEvent(0, "", "{}")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> new RunEvent(1, "", "two\nlines")).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void aRunKeepsOnlyItsNewestEventsBeyondItsBound() {
            Run run = clocked.runs().start(ANA, "default", true);
            clocked.runs().append("ana", run.id(), events(1, 4), 5);
            clocked.runs().append("ana", run.id(), events(5, 8), 5);
            assertThat(clocked.runs().events("ana", run.id(), 0, 100)).isEqualTo(events(4, 8));
            assertThat(clocked.runs().lastSeq("ana", run.id())).isEqualTo(8);
            clocked.runs().append("ana", run.id(), events(9, 9), 5);
            assertThat(clocked.runs().events("ana", run.id(), 0, 100)).isEqualTo(events(5, 9));
        }

        @Test
        void runsThatEndedLongAgoOrLostTheirServerArePurgedWithTheirEvents() {
            Run old = clocked.runs().start(ANA, "default", true);
            clocked.runs().append("ana", old.id(), events(1, 2), 100);
            clocked.runs().finish("ana", old.id(), RunStatus.COMPLETED, "end_turn");
            Run lost = clocked.runs().start(ANA, "conv-1", true);
            clock.advance(java.time.Duration.ofMinutes(30));
            Run recent = clocked.runs().start(ANA, "conv-2", true);
            clocked.runs().finish("ana", recent.id(), RunStatus.COMPLETED, "end_turn");
            Run alive = clocked.runs().start(ANA, "conv-3", true);
            Instant cutoff = clock.instant().minus(java.time.Duration.ofMinutes(10));
            assertThat(clocked.runs().purge(cutoff, cutoff)).isEqualTo(2);
            assertThat(clocked.runs().get("ana", old.id())).isEmpty();
            assertThat(clocked.runs().get("ana", lost.id())).isEmpty();
            assertThat(clocked.runs().get("ana", recent.id())).isPresent();
            assertThat(clocked.runs().get("ana", alive.id())).isPresent();
            Run again = clocked.runs().start(ANA, "default", true);
            clocked.runs().append("ana", again.id(), events(1, 1), 100);
            assertThat(clocked.runs().events("ana", again.id(), 0, 100)).isEqualTo(events(1, 1));
        }
    }

    /** Conversations: several with one agent, each its user's; deleting one keeps the messages. */
    @Nested
    class Conversations {
        @Test
        void aConversationIsStoredChangedListedAndDeletedAsItsUsers() {
            Conversation first = store.conversations().create(ANA, "planning the trip");
            Conversation second = store.conversations().create(ANA, "");
            assertThat(first.id()).startsWith(Conversation.ID_PREFIX).isNotEqualTo(second.id());
            assertThat(first.scope()).isEqualTo(ANA);
            assertThat(store.conversations().get("ana", first.id())).contains(first);
            assertThat(store.conversations().list("ana")).containsExactlyInAnyOrder(first, second);
            Conversation renamed = store.conversations().updateSummary("ana", first.id(), "the trip, booked");
            assertThat(renamed.summary()).isEqualTo("the trip, booked");
            assertThat(renamed.createdAt()).isEqualTo(first.createdAt());
            assertThat(store.conversations().get("ana", first.id())).contains(renamed);
            store.messages().append(ANA, NewMessage.user(first.id(), "hello"));
            assertThat(store.conversations().delete("ana", first.id())).isTrue();
            assertThat(store.conversations().delete("ana", first.id())).isFalse();
            assertThat(store.conversations().get("ana", first.id())).isEmpty();
            assertThat(store.conversations().list("ana")).containsExactly(second);
            assertThat(store.messages().list(ANA, MessageQuery.all().withSession(first.id()))).hasSize(1);
        }

        @Test
        void aConversationsMetadataIsReplacedKeptBesideItsSummaryAndAnotherUserCannotChangeIt() {
            Conversation c = store.conversations().create(ANA, "planning the trip");
            assertThat(c.metadata().isEmpty()).isTrue();
            Conversation tagged = store.conversations().updateMetadata("ana", c.id(),
                    Metadata.parse("{\"topic\": \"travel\", \"priority\": 2}"));
            assertThat(tagged.metadata().values()).containsEntry("topic", "travel").containsEntry("priority", 2);
            assertThat(tagged.summary()).isEqualTo("planning the trip");
            Conversation renamed = store.conversations().updateSummary("ana", c.id(), "the trip, booked");
            assertThat(renamed.metadata()).isEqualTo(tagged.metadata());
            assertThat(store.conversations().get("ana", c.id())).contains(renamed);
            assertThatThrownBy(() -> store.conversations().updateMetadata("ben", c.id(), Metadata.parse("{\"x\": 1}")))
                    .isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> Metadata.parse("{\"user_id\": \"ben\"}")).isInstanceOf(IllegalArgumentException.class);
            assertThat(store.conversations().get("ana", c.id())).contains(renamed);
            assertThat(store.conversations().updateMetadata("ana", c.id(), Metadata.empty()).metadata().isEmpty()).isTrue();
        }

        @Test
        void anotherUsersConversationIsNotThereForThemAndNotChangedByThem() {
            Conversation anas = store.conversations().create(ANA, "private");
            assertThat(store.conversations().get("ben", anas.id())).isEmpty();
            assertThat(store.conversations().list("ben")).isEmpty();
            assertThatThrownBy(() -> store.conversations().updateSummary("ben", anas.id(), "mine now"))
                    .isInstanceOf(NotFoundException.class);
            assertThat(store.conversations().delete("ben", anas.id())).isFalse();
            assertThat(store.conversations().get("ana", anas.id())).contains(anas);
        }

        @Test
        void badSummariesAreRefusedAndNothingIsStoredOrChanged() {
            assertThatThrownBy(() -> store.conversations().create(ANA, "x".repeat(ConversationStore.MAX_SUMMARY_CHARS + 1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shorten it");
            assertThatThrownBy(() -> store.conversations().create(ANA, "bad \uD800 text"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(store.conversations().list("ana")).isEmpty();
            Conversation c = store.conversations().create(ANA, "kept");
            assertThatThrownBy(() -> store.conversations().updateSummary("ana", c.id(), "x".repeat(20_000)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(store.conversations().get("ana", c.id())).contains(c);
        }
    }

    /** Each user's MCP servers: one per name and user, seen only by their user, their sealed secrets kept as given. */
    @Nested
    class McpServers {
        @Test
        void aServerIsStoredChangedListedAndDeletedByItsUserOnly() {
            McpServerRecord s = store.mcpServers().create("ana", "fs", "stdio", "{\"command\":\"x\"}", "sealed-1");
            assertThat(s.id()).startsWith("mcp_server-");
            assertThat(s.tools()).isEqualTo("[]");
            assertThat(store.mcpServers().get("ana", s.id())).contains(s);
            assertThat(store.mcpServers().get("bob", s.id())).isEmpty();
            assertThat(store.mcpServers().list("bob")).isEmpty();
            McpServerRecord other = store.mcpServers().create("bob", "fs", "sse", "{}", "");
            McpServerRecord changed = store.mcpServers().update("ana", s.id(), "files", "streamable_http", "{}", "sealed-2");
            assertThat(changed.name()).isEqualTo("files");
            assertThat(changed.sealedSecrets()).isEqualTo("sealed-2");
            assertThat(changed.createdAt()).isEqualTo(s.createdAt());
            McpServerRecord listed = store.mcpServers().rememberTools("ana", s.id(), "[{\"name\":\"echo\"}]");
            assertThat(store.mcpServers().list("ana")).containsExactly(listed);
            assertThat(store.mcpServers().listAll()).containsExactly(listed, other);
            assertThat(store.mcpServers().delete("bob", s.id())).isFalse();
            assertThat(store.mcpServers().delete("ana", s.id())).isTrue();
            assertThat(store.mcpServers().delete("ana", s.id())).isFalse();
            assertThat(store.mcpServers().list("ana")).isEmpty();
        }

        @Test
        void aSecondServerOfTheSameNameIsRefusedAndNothingChanges() {
            McpServerRecord a = store.mcpServers().create("ana", "fs", "stdio", "{}", "");
            McpServerRecord b = store.mcpServers().create("ana", "web", "sse", "{}", "");
            assertThatThrownBy(() -> store.mcpServers().create("ana", "fs", "sse", "{}", ""))
                    .isInstanceOf(DuplicateException.class).hasMessageContaining("'fs'");
            assertThatThrownBy(() -> store.mcpServers().update("ana", b.id(), "fs", "sse", "{}", ""))
                    .isInstanceOf(DuplicateException.class);
            assertThatThrownBy(() -> store.mcpServers().update("bob", a.id(), "x", "sse", "{}", ""))
                    .isInstanceOf(NotFoundException.class);
            assertThatThrownBy(() -> store.mcpServers().create("ana", " ", "stdio", "{}", ""))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(store.mcpServers().list("ana")).containsExactly(a, b);
        }
    }

    /** Registered model providers: one per name, their sealed key kept as given. */
    @Nested
    class Providers {
        @Test
        void aProviderIsStoredChangedListedAndDeleted() {
            ProviderRecord p = store.providers().create("gpu-box", "openai", "http://gpu-box:8000/v1", "sealed-1");
            assertThat(p.id()).startsWith("provider-");
            assertThat(store.providers().get(p.id())).contains(p);
            ProviderRecord changed = store.providers().update(p.id(), "", "sealed-2");
            assertThat(changed.baseUrl()).isEmpty();
            assertThat(changed.sealedApiKey()).isEqualTo("sealed-2");
            assertThat(changed.createdAt()).isEqualTo(p.createdAt());
            assertThat(store.providers().list()).containsExactly(changed);
            assertThat(store.providers().delete(p.id())).isTrue();
            assertThat(store.providers().delete(p.id())).isFalse();
            assertThat(store.providers().list()).isEmpty();
        }

        @Test
        void aSecondProviderOfTheSameNameIsRefusedAndNothingIsStored() {
            ProviderRecord p = store.providers().create("main", "anthropic", "", "sealed");
            assertThatThrownBy(() -> store.providers().create("main", "openai", "", "other"))
                    .isInstanceOf(DuplicateException.class).hasMessageContaining("'main'");
            assertThatThrownBy(() -> store.providers().create("bad\u0000name", "openai", "", "sealed"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.providers().update("provider-nope", "", "sealed"))
                    .isInstanceOf(NotFoundException.class);
            assertThat(store.providers().list()).containsExactly(p);
        }
    }

    @Nested
    class Keys {
        @Test
        void aKeyIsShownOnceAndVerifiesAsItsUser() {
            KeyStore.CreatedKey ana = store.keys().create(Optional.of("ana"), "ana's laptop");
            KeyStore.CreatedKey admin = store.keys().create(Optional.empty(), "operations");
            assertThat(ana.secret()).startsWith(KeyStore.PREFIX).hasSizeGreaterThan(40);
            assertThat(ana.key().id()).startsWith("key-");
            assertThat(ana.toString()).doesNotContain(ana.secret());
            assertThat(store.keys().verify(ana.secret())).map(ApiKey::userId).contains(Optional.of("ana"));
            assertThat(store.keys().verify(admin.secret())).map(ApiKey::admin).contains(true);
            assertThat(store.keys().list()).extracting(ApiKey::name).containsExactly("ana's laptop", "operations");
        }

        @Test
        void aWrongMalformedOrRevokedKeyVerifiesAsNothing() {
            KeyStore.CreatedKey ana = store.keys().create(Optional.of("ana"), "");
            for (String wrong : new String[] {null, "", "engram_", ana.secret() + "x", ana.secret().substring(1), "Bearer " + ana.secret(),
                    KeyStore.PREFIX + "x".repeat(300)}) {
                assertThat(store.keys().verify(wrong)).as(String.valueOf(wrong)).isEmpty();
            }
            assertThat(store.keys().revoke(ana.key().id())).isTrue();
            assertThat(store.keys().revoke(ana.key().id())).isFalse();
            assertThat(store.keys().verify(ana.secret())).isEmpty();
            assertThat(store.keys().list()).isEmpty();
        }

        @Test
        void badKeysAreRefusedAndNothingIsStored() {
            assertThatThrownBy(() -> store.keys().create(Optional.of(" "), "x")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.keys().create(Optional.of("ana"), "n".repeat(201))).isInstanceOf(IllegalArgumentException.class);
            assertThat(store.keys().list()).isEmpty();
        }
    }
}
