package dev.engram.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link MemoryStore#inTransaction} promises on every backend: one unit of work that sub-store calls
 * on its thread join, committed whole or not at all, whose change-log events a search index sees only
 * once committed and then in order. {@link MemoryStoreConformance} runs it as a nested class, so every
 * backend that runs the conformance suite runs these too.
 */
public abstract class UnitOfWorkConformance {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope BEN = Scope.of("ben", "helper");
    private static final long WAIT_SECONDS = 60;

    @TempDir
    Path indexDir;

    /** The open store under test. */
    protected abstract MemoryStore store();

    /** Writes one of each kind of row (agent, block, archival entry, messages, note, identity) inside the unit. */
    private static void writeOfEachKind(MemoryStore tx) {
        tx.agents().create(ANA, "Helper", "{\"model\":\"m\"}");
        tx.blocks().create(ANA, NewBlock.builder("human").value("Name: Ana").build());
        tx.archival().insert(ANA, NewArchivalEntry.of("Ana keeps bees"));
        tx.messages().appendAll(ANA, List.of(NewMessage.user("s", "hello"), NewMessage.assistant("s", "hi", List.of())));
        tx.notes().save("ana", "buy honey jars");
        tx.identities().put("ana", "Ana", "user");
    }

    private void assertNothingOfEachKind(long seqBefore) {
        MemoryStore store = store();
        assertThat(store.agents().get(ANA)).isEmpty();
        assertThat(store.blocks().list(ANA)).isEmpty();
        assertThat(store.archival().count(ANA)).isZero();
        assertThat(store.messages().count(ANA)).isZero();
        assertThat(store.notes().count("ana")).isZero();
        assertThat(store.identities().get("ana")).isEmpty();
        assertThat(store.changes().lastSeq()).as("change log after a rolled-back unit").isEqualTo(seqBefore);
        assertThat(store.changes().since(seqBefore, 100)).isEmpty();
    }

    @Test
    void aCommittedUnitKeepsEveryWriteAndItsEventsAppearTogetherInOrder() {
        MemoryStore store = store();
        long before = store.changes().lastSeq();
        String result = store.inTransaction(tx -> {
            writeOfEachKind(tx);
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(store.agents().get(ANA)).map(AgentRecord::name).contains("Helper");
        assertThat(store.blocks().get(ANA, "human")).map(Block::value).contains("Name: Ana");
        assertThat(store.archival().count(ANA)).isOne();
        assertThat(store.messages().count(ANA)).isEqualTo(2);
        assertThat(store.notes().count("ana")).isOne();
        assertThat(store.identities().get("ana")).map(Identity::name).contains("Ana");
        List<ChangeEvent> events = store.changes().since(before, 100);
        assertThat(events).extracting(ChangeEvent::entity).containsExactly(ChangeEvent.Entity.BLOCK,
                ChangeEvent.Entity.ARCHIVAL, ChangeEvent.Entity.MESSAGE, ChangeEvent.Entity.MESSAGE, ChangeEvent.Entity.NOTE);
        assertThat(events).extracting(ChangeEvent::seq).isSorted().doesNotHaveDuplicates();
        assertThat(store.changes().knownLastSeq()).isEqualTo(events.getLast().seq());
    }

    @Test
    void aThrowRollsBackEveryRowAndEveryChangeLogEntryAndTheExceptionReachesTheCaller() {
        MemoryStore store = store();
        store.notes().save("ben", "committed before");
        long before = store.changes().lastSeq();
        IllegalStateException boom = new IllegalStateException("boom");
        Throwable thrown = catchThrowable(() -> store.useTransaction(tx -> {
            writeOfEachKind(tx);
            throw boom;
        }));
        assertThat(thrown).isSameAs(boom);
        assertNothingOfEachKind(before);
        assertThat(store.changes().knownLastSeq()).isEqualTo(before);
        Note after = store.notes().save("ben", "committed after");
        assertThat(store.changes().since(before, 100)).as("only the later write's event, no ghost of the unit")
                .singleElement().satisfies(e -> assertThat(e.id()).isEqualTo(after.id()));
    }

    @Test
    void insideTheUnitItsWritesAreReadBackButTheChangeLogShowsOnlyCommittedEvents() {
        MemoryStore store = store();
        store.notes().save("ben", "committed");
        long before = store.changes().lastSeq();
        store.useTransaction(tx -> {
            assertThat(tx.isInTransaction()).isTrue();
            tx.blocks().create(ANA, NewBlock.builder("human").value("Name: Ana").build());
            tx.archival().insert(ANA, NewArchivalEntry.of("Ana keeps bees"));
            assertThat(tx.blocks().get(ANA, "human")).map(Block::value).contains("Name: Ana");
            assertThat(tx.archival().count(ANA)).isOne();
            assertThat(tx.changes().lastSeq()).as("the log inside the unit").isEqualTo(before);
            assertThat(tx.changes().knownLastSeq()).isEqualTo(before);
            assertThat(tx.changes().since(before, 100)).isEmpty();
        });
        assertThat(store.isInTransaction()).isFalse();
        assertThat(store.changes().since(before, 100)).extracting(ChangeEvent::entity)
                .containsExactly(ChangeEvent.Entity.BLOCK, ChangeEvent.Entity.ARCHIVAL);
    }

    @Test
    void aNestedUnitJoinsTheOuterOneAndRollsBackWithIt() {
        MemoryStore store = store();
        long before = store.changes().lastSeq();
        assertThatThrownBy(() -> store.useTransaction(outer -> {
            outer.agents().create(ANA, "Helper", "{}");
            String inner = outer.inTransaction(tx -> {
                tx.blocks().create(ANA, NewBlock.builder("human").value("Name: Ana").build());
                return "inner";
            });
            assertThat(inner).isEqualTo("inner");
            assertThat(outer.changes().lastSeq()).as("a nested unit commits only with the outer one").isEqualTo(before);
            outer.notes().save("ana", "note");
            throw new IllegalStateException("outer fails after the nested unit returned");
        })).isInstanceOf(IllegalStateException.class).hasMessage("outer fails after the nested unit returned");
        assertNothingOfEachKind(before);
    }

    @Test
    void aStoreCallThatFailsInsideSpoilsTheUnitEvenWhenTheWorkCatchesIt() {
        MemoryStore store = store();
        long before = store.changes().lastSeq();
        assertThatThrownBy(() -> store.inTransaction(tx -> {
            tx.agents().create(ANA, "Helper", "{}");
            tx.blocks().create(ANA, NewBlock.builder("human").value("one").build());
            try {
                tx.blocks().create(ANA, NewBlock.builder("human").value("two").build());
            } catch (DuplicateException ignored) {
                // carries on as if nothing had happened
            }
            return "carried on";
        })).isInstanceOf(MemoryException.class)
                .hasMessageStartingWith("The unit of work was rolled back and nothing it wrote was kept")
                .hasMessageContaining("already has a block labelled 'human'")
                .hasCauseInstanceOf(DuplicateException.class);
        assertNothingOfEachKind(before);
    }

    @Test
    void aWriterOnAnotherThreadWaitsForTheUnitAndItsEventsFollowTheUnitsWithoutInterleaving() throws Exception {
        MemoryStore store = store();
        long before = store.changes().lastSeq();
        CompletableFuture<Note> other = new CompletableFuture<>();
        store.useTransaction(tx -> {
            tx.archival().insert(ANA, NewArchivalEntry.of("first"));
            Thread.ofPlatform().start(() -> {
                try {
                    other.complete(store.notes().save("ben", "written from another thread"));
                } catch (RuntimeException e) {
                    other.completeExceptionally(e);
                }
            });
            tx.archival().insert(ANA, NewArchivalEntry.of("second"));
            tx.archival().insert(ANA, NewArchivalEntry.of("third"));
        });
        Note note = other.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(store.notes().get("ben", note.id())).isPresent();
        List<ChangeEvent> events = store.changes().since(before, 100);
        assertThat(events).extracting(ChangeEvent::entity).containsExactly(ChangeEvent.Entity.ARCHIVAL,
                ChangeEvent.Entity.ARCHIVAL, ChangeEvent.Entity.ARCHIVAL, ChangeEvent.Entity.NOTE);
        assertThat(events).extracting(ChangeEvent::seq).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aWriterWaitingOnARolledBackUnitGoesOnAndTheStoreTakesNewUnits() throws Exception {
        MemoryStore store = store();
        long before = store.changes().lastSeq();
        CompletableFuture<Note> other = new CompletableFuture<>();
        assertThatThrownBy(() -> store.useTransaction(tx -> {
            tx.archival().insert(ANA, NewArchivalEntry.of("rolled back"));
            Thread.ofPlatform().start(() -> {
                try {
                    other.complete(store.notes().save("ben", "waited"));
                } catch (RuntimeException e) {
                    other.completeExceptionally(e);
                }
            });
            throw new IllegalStateException("boom");
        })).hasMessage("boom");
        other.get(WAIT_SECONDS, TimeUnit.SECONDS);
        store.useTransaction(tx -> tx.archival().insert(BEN, NewArchivalEntry.of("next unit")));
        assertThat(store.archival().count(ANA)).isZero();
        assertThat(store.archival().count(BEN)).isOne();
        assertThat(store.changes().since(before, 100)).extracting(ChangeEvent::entity)
                .containsExactly(ChangeEvent.Entity.NOTE, ChangeEvent.Entity.ARCHIVAL);
    }

    @Test
    void anotherThreadNeverReadsTheUnitsWritesOrEventsBeforeItCommits() throws Exception {
        MemoryStore store = store();
        long before = store.changes().lastSeq();
        AtomicBoolean committing = new AtomicBoolean();
        CountDownLatch written = new CountDownLatch(1);
        CompletableFuture<Boolean> readerSawOnlyCommittedData = CompletableFuture.supplyAsync(() -> {
            try {
                written.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            // A backend may make this read wait for the commit (the in-memory one does); what it must never do is
            // show the unit's rows or events before the unit is about to commit.
            boolean sawRow = store.archival().count(ANA) > 0;
            boolean sawEvent = store.changes().lastSeq() > before;
            return !(sawRow || sawEvent) || committing.get();
        });
        store.useTransaction(tx -> {
            tx.archival().insert(ANA, NewArchivalEntry.of("not yet committed"));
            written.countDown();
            try {
                // Give the reader time to read while the unit is open (a backend with blocking reads just waits).
                readerSawOnlyCommittedData.get(200, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // the reader waits for the commit
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            committing.set(true);
        });
        assertThat(readerSawOnlyCommittedData.get(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aSearchIndexFollowingTheLogNeverSeesARolledBackUnitAndSeesACommittedOne() {
        MemoryStore store = store();
        try (Embedder embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(1).build();
                LuceneMemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(indexDir.resolve("index"))
                        .backgroundInterval(Duration.ZERO).build()) {
            store.archival().insert(ANA, NewArchivalEntry.of("Ana keeps bees in the garden"));
            long before = search.awaitIndexed();
            assertThatThrownBy(() -> store.useTransaction(tx -> {
                tx.archival().insert(ANA, NewArchivalEntry.of("zebra crossing near the station"));
                assertThat(search.awaitIndexed()).as("the index catching up inside the unit").isEqualTo(before);
                assertThat(zebraHits(search)).isEmpty();
                throw new IllegalStateException("boom");
            })).hasMessage("boom");
            assertThat(search.awaitIndexed()).isEqualTo(before);
            assertThat(zebraHits(search)).as("a rolled-back entry in the index").isEmpty();

            store.useTransaction(tx -> {
                tx.archival().insert(ANA, NewArchivalEntry.of("zebra crossing near the station"));
                tx.archival().insert(ANA, NewArchivalEntry.of("zebra stripes on the bridge"));
            });
            assertThat(search.awaitIndexed()).isEqualTo(store.changes().lastSeq());
            assertThat(zebraHits(search)).extracting(SearchHit::text)
                    .containsExactlyInAnyOrder("zebra crossing near the station", "zebra stripes on the bridge");
        }
    }

    private static List<SearchHit> zebraHits(LuceneMemorySearch search) {
        return search.search(SearchRequest.builder(ANA, "zebra").mode(SearchMode.BM25).domains(SearchDomain.ARCHIVAL).build());
    }
}
