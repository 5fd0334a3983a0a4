package dev.engram.memory.lucene;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.BlockStore;
import dev.engram.memory.Embedder;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.Fusion;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageRole;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Note;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.SqliteOptions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hybrid search over a real SQLite store, a real Lucene index and the real MiniLM model. */
class LuceneMemorySearchTest {
    private static Embedder embedder;

    @TempDir
    Path dir;

    private MemoryStore store;
    private MemorySearch search;

    private static final Scope ANA = Scope.of("ana", "helper");
    private static final Scope ANA_COACH = Scope.of("ana", "coach");
    private static final Scope BEN = Scope.of("ben", "helper");
    /** Six unrelated facts for the vector-search tests. */
    private static final List<String> FACTS = List.of("the violin needs new strings", "a recipe for lemon cake",
            "train to Lisbon at nine", "the cat sleeps on the piano", "tax return due in April", "cello lessons on Tuesday");

    @BeforeAll
    static void loadModel() {
        embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(2).build();
    }

    @AfterAll
    static void closeModel() {
        embedder.close();
    }

    @BeforeEach
    void open() {
        store = MemoryStore.sqlite(dir.resolve("memory.db"));
        search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                .backgroundInterval(Duration.ZERO).build();
    }

    @AfterEach
    void close() {
        search.close();
        store.close();
    }

    private List<SearchHit> find(Scope scope, String query) {
        return search.search(SearchRequest.builder(scope, query).build());
    }

    private List<SearchHit> lexical(Scope scope, String query) {
        return search.search(SearchRequest.builder(scope, query).mode(SearchMode.BM25).build());
    }

    private static MemorySearch searchOver(MemoryStore store, Path index) {
        return LuceneMemorySearch.builder(store, embedder).directory(index).backgroundInterval(Duration.ZERO).build();
    }

    private static List<String> texts(MemorySearch search, String query) {
        return search.search(SearchRequest.builder(Scope.of("ana", "helper"), query).mode(SearchMode.BM25)
                .domains(SearchDomain.NOTES).build()).stream().map(SearchHit::text).toList();
    }

    @Test
    void anIndexOverARestoredAndRewrittenStoreIsRebuiltAndServesOnlyWhatTheStoreHolds() throws Exception {
        Path db = dir.resolve("restored.db");
        Path index = dir.resolve("restored-index");
        try (MemoryStore s = MemoryStore.sqlite(db); MemorySearch x = searchOver(s, index)) {
            s.notes().save("ana", "apples are in the fridge");
            x.awaitIndexed();
        }
        Path backup = Files.copy(db, dir.resolve("backup.db"));
        try (MemoryStore s = MemoryStore.sqlite(db); MemorySearch x = searchOver(s, index)) {
            s.notes().save("ana", "banana code is PIN 9999");
            x.awaitIndexed();
        }
        Files.copy(backup, db, java.nio.file.StandardCopyOption.REPLACE_EXISTING); // restore the backup
        try (MemoryStore s = MemoryStore.sqlite(db)) {
            // Two writes: the store's sequence passes the index's again, with other changes under the same numbers.
            s.notes().save("ana", "cherry jam on the shelf");
            s.notes().save("ana", "dates in the pantry");
            try (MemorySearch x = searchOver(s, index)) {
                assertThat(texts(x, "banana PIN")).as("a note the restored store does not hold").isEmpty();
                assertThat(texts(x, "cherry jam")).containsExactly("cherry jam on the shelf");
                assertThat(texts(x, "apples")).containsExactly("apples are in the fridge");
            }
        }
    }

    @Test
    void anIndexOpenedOverAnotherStoreIsRebuilt() {
        Path index = dir.resolve("shared-index");
        try (MemoryStore first = MemoryStore.sqlite(dir.resolve("first.db")); MemorySearch x = searchOver(first, index)) {
            first.notes().save("ana", "only in the first store");
            x.awaitIndexed();
        }
        try (MemoryStore second = MemoryStore.sqlite(dir.resolve("second.db"))) {
            second.notes().save("ana", "only in the second store");
            try (MemorySearch x = searchOver(second, index)) {
                assertThat(texts(x, "only store")).containsExactly("only in the second store");
            }
        }
    }

    /** Wraps the real embedder: records the longest text it embeds, and can hold a text back until released. */
    private static final class WatchingEmbedder implements Embedder {
        final java.util.concurrent.atomic.AtomicInteger longest = new java.util.concurrent.atomic.AtomicInteger();
        /** Every text embedded, in order. */
        final List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());
        final java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        private final String holdOn;

        WatchingEmbedder(String holdOn) {
            this.holdOn = holdOn;
        }

        @Override
        public String id() {
            return embedder.id();
        }

        @Override
        public int dimensions() {
            return embedder.dimensions();
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            seen.addAll(texts);
            texts.forEach(t -> longest.accumulateAndGet(t.length(), Math::max));
            if (texts.stream().anyMatch(t -> t.contains(holdOn))) {
                holding.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return embedder.embed(texts);
        }

        @Override
        public float[] embedQuery(String query) {
            return embedder.embedQuery(query);
        }
    }

    @Test
    void aHugeNoteIsEmbeddedOnlyInPartButFoundByAnyOfItsWords() {
        WatchingEmbedder watching = new WatchingEmbedder("\u0000never");
        try (MemoryStore s = MemoryStore.sqlite(dir.resolve("huge.db"));
                MemorySearch x = LuceneMemorySearch.builder(s, watching).backgroundInterval(Duration.ZERO).build()) {
            s.notes().save("ana", "Lorem ipsum dolor sit amet. ".repeat(20_000) + "The vault code is zanzibar-42.");
            assertThat(texts(x, "zanzibar")).hasSize(1);
            assertThat(watching.longest.get()).isLessThanOrEqualTo(LuceneDocuments.MAX_EMBEDDED_CHARS);
        }
    }

    @Test
    void aSearchDoesNotWaitForAnotherUsersPendingWrite() throws Exception {
        WatchingEmbedder watching = new WatchingEmbedder("ALICE-BIG");
        try (MemoryStore s = MemoryStore.sqlite(dir.resolve("two-users.db"));
                MemorySearch x = LuceneMemorySearch.builder(s, watching).backgroundInterval(Duration.ofMillis(20)).build();
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            Scope ben = Scope.of("ben", "helper");
            s.notes().save("ben", "Ben likes oolong tea");
            x.awaitIndexed();
            s.notes().save("alice", "ALICE-BIG notes about the garden");
            assertThat(watching.holding.await(30, java.util.concurrent.TimeUnit.SECONDS)).as("the indexer took alice's note").isTrue();
            // While the indexer is busy with alice's note, ben's search answers from what is indexed.
            java.util.concurrent.Future<List<SearchHit>> bens = pool.submit(() -> x.search(
                    SearchRequest.builder(ben, "oolong").mode(SearchMode.BM25).domains(SearchDomain.NOTES).build()));
            assertThat(bens.get(30, java.util.concurrent.TimeUnit.SECONDS)).extracting(SearchHit::text)
                    .containsExactly("Ben likes oolong tea");
            watching.release.countDown();
            assertThat(x.search(SearchRequest.builder(Scope.of("alice", "helper"), "garden").mode(SearchMode.BM25)
                    .domains(SearchDomain.NOTES).build())).extracting(SearchHit::text).containsExactly("ALICE-BIG notes about the garden");
        }
    }

    @Test
    void aSecondProcessOnTheSameIndexIsToldWhichProcessHoldsIt() {
        // The index of open() holds the directory; another opener (here in the same JVM) finds it locked.
        String pid = Long.toString(ProcessHandle.current().pid());
        assertThatThrownBy(() -> LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index")).build())
                .isInstanceOf(MemoryException.class)
                .hasMessageStartingWith("The search index in " + dir.resolve("index") + " is in use by another process (pid " + pid + ": ")
                .hasMessageEndingWith("; stop that process, or open this one with another home or index directory.");
        search.close();
        assertThat(dir.resolve("index").resolve(IndexOwner.FILE)).as("released on close").doesNotExist();
        search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index")).backgroundInterval(Duration.ZERO).build();
        assertThat(dir.resolve("index").resolve(IndexOwner.FILE)).exists();
    }

    @Test
    void aWriteIsSearchableAsSoonAsItsCallReturns() {
        ArchivalEntry e = store.archival().insert(ANA, NewArchivalEntry.of("Ana's sister lives in Zanzibar"));
        List<SearchHit> hits = find(ANA, "Zanzibar");
        assertThat(hits).extracting(SearchHit::id).containsExactly(e.id());
        assertThat(hits.get(0).domain()).isEqualTo(SearchDomain.ARCHIVAL);
        assertThat(hits.get(0).text()).isEqualTo("Ana's sister lives in Zanzibar");
        assertThat(hits.get(0).timestamp()).isEqualTo(e.updatedAt());
        assertThat(search.indexedSeq()).isEqualTo(store.changes().lastSeq());
    }

    @Test
    void aWriteByAnotherProcessIsSearchableAfterAwaitIndexed() {
        store.archival().insert(ANA, NewArchivalEntry.of("Ana keeps bees on the roof"));
        assertThat(lexical(ANA, "bees")).hasSize(1);
        // A second store on the same file stands for another process writing the database.
        ArchivalEntry other;
        try (MemoryStore elsewhere = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            other = elsewhere.archival().insert(ANA, NewArchivalEntry.of("Ana sells the bees' honey at the market"));
        }
        search.awaitIndexed();
        assertThat(lexical(ANA, "honey")).extracting(SearchHit::id).containsExactly(other.id());
        assertThat(store.changes().knownLastSeq()).isEqualTo(store.changes().lastSeq());
        // A write through this store is seen by the next search without awaitIndexed().
        ArchivalEntry mine = store.archival().insert(ANA, NewArchivalEntry.of("Ana's hives swarmed in May"));
        assertThat(store.changes().knownLastSeq()).isEqualTo(store.changes().lastSeq());
        assertThat(lexical(ANA, "swarmed")).extracting(SearchHit::id).containsExactly(mine.id());
    }

    @Test
    void aLongEntryComesBackWholeInItsHit() {
        StringBuilder text = new StringBuilder("The lighthouse logbook. ");
        while (text.length() < 200_000) {
            text.append("Entry ").append(text.length()).append(": the lamp was lit at dusk and the sea was calm. ");
        }
        ArchivalEntry e = store.archival().insert(ANA, NewArchivalEntry.of(text.toString()));
        List<SearchHit> hits = find(ANA, "lighthouse logbook");
        assertThat(hits).extracting(SearchHit::id).containsExactly(e.id());
        assertThat(hits.get(0).text()).isEqualTo(text.toString());
    }

    @Test
    void theBackgroundIndexerCatchesUpWithinItsInterval() throws Exception {
        search.close();
        search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                .backgroundInterval(Duration.ofMillis(20)).build();
        store.notes().save("ana", "background indexing works");
        long target = store.changes().lastSeq();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (search.indexedSeq() < target && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(search.indexedSeq()).isEqualTo(target);
    }

    @Test
    void everyDomainIsIndexedAndFilteredByScope() {
        store.archival().insert(ANA, NewArchivalEntry.of("The garden needs watering on Fridays"));
        store.messages().append(ANA, NewMessage.user("s1", "Remind me about the garden"));
        store.notes().save("ana", "Garden tools are in the shed");
        store.blocks().create(ANA, NewBlock.builder("human").value("Ana loves her garden").build());
        store.archival().insert(ANA_COACH, NewArchivalEntry.of("Coach's garden notes"));
        store.archival().insert(BEN, NewArchivalEntry.of("Ben's garden is huge"));
        store.notes().save("ben", "Ben's garden note");

        assertThat(find(ANA, "garden")).extracting(SearchHit::domain).containsExactlyInAnyOrder(
                SearchDomain.ARCHIVAL, SearchDomain.CONVERSATIONS, SearchDomain.NOTES, SearchDomain.BLOCKS);
        assertThat(find(ANA_COACH, "garden")).extracting(SearchHit::text)
                .containsExactlyInAnyOrder("Coach's garden notes", "Garden tools are in the shed");
        assertThat(find(BEN, "garden")).extracting(SearchHit::text)
                .containsExactlyInAnyOrder("Ben's garden is huge", "Ben's garden note");
        assertThat(search.search(SearchRequest.builder(ANA, "garden").domains(SearchDomain.NOTES).build()))
                .extracting(SearchHit::text).containsExactly("Garden tools are in the shed");
        for (SearchMode mode : SearchMode.values()) {
            assertThat(search.search(SearchRequest.builder(BEN, "garden").mode(mode).k(50).build()))
                    .as(mode.name()).allSatisfy(h -> assertThat(h.text()).startsWith("Ben's"));
        }
    }

    @Test
    void updatesAndDeletesReachTheIndex() {
        Note note = store.notes().save("ana", "Meeting is on Monday");
        ArchivalEntry entry = store.archival().insert(ANA, NewArchivalEntry.of("The password hint is blue elephant"));
        store.blocks().create(ANA, NewBlock.builder("plan").value("Visit Porto").build());
        assertThat(search.search(SearchRequest.builder(ANA, "elephant").mode(SearchMode.BM25).build())).hasSize(1);
        store.notes().update("ana", note.id(), "Meeting moved to Thursday");
        store.archival().delete(ANA, entry.id());
        store.blocks().replace(ANA, "plan", "Visit Coimbra", BlockStore.ANY_VERSION);
        assertThat(search.search(SearchRequest.builder(ANA, "elephant").mode(SearchMode.BM25).build())).isEmpty();
        assertThat(search.search(SearchRequest.builder(ANA, "Monday").mode(SearchMode.BM25).build())).isEmpty();
        assertThat(search.search(SearchRequest.builder(ANA, "Thursday").mode(SearchMode.BM25).build()))
                .extracting(SearchHit::id).containsExactly(note.id());
        assertThat(search.search(SearchRequest.builder(ANA, "Coimbra").mode(SearchMode.BM25).build()))
                .extracting(SearchHit::id).containsExactly("plan");
        store.blocks().delete(ANA, "plan", BlockStore.ANY_VERSION);
        assertThat(search.search(SearchRequest.builder(ANA, "Coimbra").mode(SearchMode.BM25).build())).isEmpty();
    }

    @Test
    void lexicalSemanticAndHybridEachDoTheirJob() {
        store.archival().insertAll(ANA, List.of(
                NewArchivalEntry.of("Order number XK-4471 shipped on Tuesday"),
                NewArchivalEntry.of("The puppy enjoys chasing balls in the park"),
                NewArchivalEntry.of("Quarterly taxes are due in April"),
                NewArchivalEntry.of("Ana prefers green tea in the morning")));
        List<SearchHit> lexical = search.search(SearchRequest.builder(ANA, "XK-4471").mode(SearchMode.BM25).build());
        assertThat(lexical).extracting(SearchHit::text).containsExactly("Order number XK-4471 shipped on Tuesday");
        assertThat(lexical.get(0).bm25()).isPresent();
        assertThat(lexical.get(0).vector()).isEmpty();

        List<SearchHit> semantic = search.search(SearchRequest.builder(ANA, "my dog likes to play fetch")
                .mode(SearchMode.VECTOR).k(1).build());
        assertThat(semantic).extracting(SearchHit::text).containsExactly("The puppy enjoys chasing balls in the park");
        assertThat(semantic.get(0).vector().orElseThrow().rank()).isEqualTo(1);
        assertThat(semantic.get(0).score()).isBetween(0.0, 1.0);

        List<SearchHit> hybrid = search.search(SearchRequest.builder(ANA, "what drink does Ana like in the morning")
                .fusion(Fusion.rrf()).k(2).build());
        assertThat(hybrid.get(0).text()).isEqualTo("Ana prefers green tea in the morning");
        assertThat(hybrid.get(0).bm25()).isPresent();
        assertThat(hybrid.get(0).vector()).isPresent();
        assertThat(hybrid.get(0).score()).isCloseTo(
                1.0 / (60 + hybrid.get(0).bm25().get().rank()) + 1.0 / (60 + hybrid.get(0).vector().get().rank()),
                org.assertj.core.data.Offset.offset(1e-9));

        List<SearchHit> weighted = search.search(SearchRequest.builder(ANA, "what drink does Ana like in the morning")
                .fusion(Fusion.weighted(0.3, 0.7)).k(2).build());
        assertThat(weighted.get(0).text()).isEqualTo("Ana prefers green tea in the morning");
        assertThat(weighted.get(0).score()).isLessThanOrEqualTo(1.0 + 1e-9);

        // The default weighs an archival entry's normalised scores 0.3 (BM25) and 0.7 (vector): first in both is 1.
        List<SearchHit> byDefault = search.search(SearchRequest.builder(ANA, "what drink does Ana like in the morning").k(2).build());
        assertThat(byDefault.get(0).text()).isEqualTo("Ana prefers green tea in the morning");
        assertThat(byDefault.get(0).bm25().orElseThrow().rank()).isEqualTo(1);
        assertThat(byDefault.get(0).vector().orElseThrow().rank()).isEqualTo(1);
        assertThat(byDefault.get(0).score()).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void aFilteredSearchReturnsKHitsWheneverKMatchesExist() {
        List<NewArchivalEntry> entries = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            entries.add(new NewArchivalEntry(java.util.Optional.empty(), "travel log entry number " + i + " about trains",
                    i % 20 == 0 ? List.of("rare") : List.of("common")));
        }
        store.archival().insertAll(ANA, entries);
        List<NewArchivalEntry> others = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            others.add(new NewArchivalEntry(java.util.Optional.empty(), "travel log entry about trains " + i, List.of("rare")));
        }
        store.archival().insertAll(BEN, others);
        for (SearchMode mode : SearchMode.values()) {
            List<SearchHit> hits = search.search(SearchRequest.builder(ANA, "trains").mode(mode).k(10)
                    .tags(Set.of("rare")).build());
            assertThat(hits).as(mode.name()).hasSize(10);
            assertThat(hits).allSatisfy(h -> assertThat(Integer.parseInt(h.text().split(" ")[4]) % 20).isZero());
            assertThat(search.search(SearchRequest.builder(ANA, "trains").mode(mode).k(40).tags(Set.of("rare")).build()))
                    .as(mode.name() + ": all 15 matches and no more").hasSize(15);
        }
    }

    @Test
    void timeRangesAndRolesFilterInsideTheSearch() {
        AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T10:00:00Z"));
        Clock clock = new Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now.get();
            }
        };
        search.close();
        store.close();
        store = MemoryStore.sqlite(SqliteOptions.builder(dir.resolve("clocked.db")).clock(clock).build());
        search = LuceneMemorySearch.builder(store, embedder).backgroundInterval(Duration.ZERO).build();
        store.messages().append(ANA, NewMessage.user("s", "the budget meeting went well"));
        now.set(Instant.parse("2026-02-01T10:00:00Z"));
        store.messages().append(ANA, NewMessage.assistant("s", "I noted the budget meeting outcome", List.of()));
        store.notes().save("ana", "budget meeting minutes");

        List<SearchHit> january = search.search(SearchRequest.builder(ANA, "budget meeting")
                .from(Instant.parse("2026-01-01T00:00:00Z")).until(Instant.parse("2026-01-31T00:00:00Z")).build());
        assertThat(january).extracting(SearchHit::text).containsExactly("the budget meeting went well");
        List<SearchHit> userOnly = search.search(SearchRequest.builder(ANA, "budget meeting")
                .roles(Set.of(MessageRole.USER)).build());
        assertThat(userOnly).extracting(SearchHit::text)
                .containsExactlyInAnyOrder("the budget meeting went well", "budget meeting minutes");
    }

    @Test
    void hostileQueryTextIsJustText() {
        store.archival().insert(ANA, NewArchivalEntry.of("C++ and e-mail and user's AND OR NOT questions"));
        for (String q : List.of("C++", "user's e-mail", "AND OR NOT", "\"unbalanced", "field:value*", "(((", "?", "-", "~!@#$%^&*")) {
            assertThat(search.search(SearchRequest.builder(ANA, q).build())).as(q).isNotNull();
        }
        assertThat(search.search(SearchRequest.builder(ANA, "the and of").mode(SearchMode.BM25).build()))
                .as("only stop words: nothing lexical to match").isEmpty();
        assertThat(search.search(SearchRequest.builder(ANA, "the and of").build())).as("hybrid still has vectors").hasSize(1);
    }

    @Test
    void badRequestsAreRejectedWithAClearMessage() {
        assertThatThrownBy(() -> SearchRequest.builder(ANA, " ").build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the search query must not be blank");
        assertThatThrownBy(() -> SearchRequest.builder(ANA, "x").k(0).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("k must be between 1 and 1000, got 0");
        assertThatThrownBy(() -> SearchRequest.builder(ANA, "x").domains(Set.of()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a search needs at least one domain");
        assertThatThrownBy(() -> SearchRequest.builder(null, "x").build()).isInstanceOf(NullPointerException.class)
                .hasMessage("a search needs a scope");
        assertThatThrownBy(() -> SearchRequest.builder(ANA, "x").from(Instant.EPOCH).until(Instant.EPOCH).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("the time range is empty");
        assertThatThrownBy(() -> Fusion.weighted(0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fusion weights must be non-negative and not both zero, got fts_weight=0.0, vector_weight=0.0");
        assertThatThrownBy(() -> Fusion.rrf(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theIndexPersistsAndCatchesUpWithWritesMadeWhileClosed() {
        store.archival().insert(ANA, NewArchivalEntry.of("first fact about kayaks"));
        search.awaitIndexed();
        long seq = search.indexedSeq();
        search.close();
        store.archival().insert(ANA, NewArchivalEntry.of("second fact about kayaks"));
        search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                .backgroundInterval(Duration.ZERO).build();
        assertThat(search.indexedSeq()).isEqualTo(seq);
        assertThat(find(ANA, "kayaks")).hasSize(2);
    }

    @Test
    void anIndexAheadOfTheStoreIsRebuilt() throws Exception {
        store.archival().insert(ANA, NewArchivalEntry.of("kept fact about violins"));
        search.awaitIndexed();
        search.close();
        store.close();
        Path backup = dir.resolve("backup.db");
        try (MemoryStore s = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            s.notes().save("ana", "placeholder");
        }
        Files.copy(dir.resolve("memory.db"), backup);
        store = MemoryStore.sqlite(dir.resolve("memory.db"));
        search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index")).backgroundInterval(Duration.ZERO).build();
        store.archival().insert(ANA, NewArchivalEntry.of("lost fact about violins"));
        search.awaitIndexed();
        search.close();
        store.close();
        // The store goes back to the backup: the newest write is gone from it.
        Files.copy(backup, dir.resolve("memory.db"), StandardCopyOption.REPLACE_EXISTING);
        Files.deleteIfExists(dir.resolve("memory.db-wal"));
        Files.deleteIfExists(dir.resolve("memory.db-shm"));
        store = MemoryStore.sqlite(dir.resolve("memory.db"));
        search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index")).backgroundInterval(Duration.ZERO).build();
        assertThat(search.search(SearchRequest.builder(ANA, "violins").mode(SearchMode.BM25).build()))
                .extracting(SearchHit::text).containsExactly("kept fact about violins");
        assertThat(search.indexedSeq()).isEqualTo(store.changes().lastSeq());
    }

    @Test
    void anIndexWithAnOlderDocumentFormatIsRebuiltAtOpen() throws Exception {
        store.archival().insert(ANA, NewArchivalEntry.of("a fact about cellos"));
        store.notes().save("ana", "a note about cellos");
        search.awaitIndexed();
        search.close();
        // Mark the index as written by the first document format, which had no scope_domain field.
        try (org.apache.lucene.store.Directory d = org.apache.lucene.store.FSDirectory.open(dir.resolve("index"));
                org.apache.lucene.index.IndexWriter w = new org.apache.lucene.index.IndexWriter(d,
                        new org.apache.lucene.index.IndexWriterConfig())) {
            java.util.Map<String, String> data = new java.util.HashMap<>();
            w.getLiveCommitData().forEach(e -> data.put(e.getKey(), e.getValue()));
            data.remove(IndexCommit.FORMAT_DATA);
            w.deleteAll();
            w.setLiveCommitData(data.entrySet());
            w.commit();
        }
        search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index")).backgroundInterval(Duration.ZERO).build();
        assertThat(find(ANA, "cellos")).extracting(SearchHit::text)
                .containsExactlyInAnyOrder("a fact about cellos", "a note about cellos");
    }

    @Test
    void theIndexingBufferIsValidatedAndASmallOneStillIndexes() {
        assertThatThrownBy(() -> LuceneMemorySearch.builder(store, embedder).indexingBufferMb(8))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("indexing buffer must be between 16 and 4096 MB, got 8");
        assertThat(LuceneMemorySearch.Builder.defaultIndexingBufferMb()).isBetween(64, 1024);
        store.archival().insert(ANA, NewArchivalEntry.of("a fact about oboes"));
        try (MemorySearch small = LuceneMemorySearch.builder(store, embedder).indexingBufferMb(16)
                .backgroundInterval(Duration.ZERO).build()) {
            assertThat(small.search(SearchRequest.builder(ANA, "oboes").build())).extracting(SearchHit::text)
                    .containsExactly("a fact about oboes");
        }
    }

    @Test
    void graphShapeIsValidatedAndASmallerGraphStillFinds() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LuceneMemorySearch.builder(store, embedder).graph(1, 100))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("graph max connections must be between 2 and 512, got 1");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LuceneMemorySearch.builder(store, embedder).graph(16, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("graph beam width must be between 8 and 3200, got 4");
        store.archival().insert(ANA, NewArchivalEntry.of("the violin needs new strings"));
        try (MemorySearch small = LuceneMemorySearch.builder(store, embedder).graph(8, 32).backgroundInterval(Duration.ZERO).build()) {
            assertThat(small.search(SearchRequest.builder(ANA, "fiddle repair").mode(SearchMode.VECTOR).build()))
                    .extracting(SearchHit::text).containsExactly("the violin needs new strings");
        }
    }

    @Test
    void aScopeThatIsTheWholeIndexIsSearchedWithoutAFilterAndStillFiltersByTime() throws InterruptedException {
        List<ArchivalEntry> entries = new ArrayList<>();
        for (String f : FACTS) {
            entries.add(store.archival().insert(ANA, NewArchivalEntry.of(f)));
            Thread.sleep(2); // distinct timestamps for the time filter below
        }
        try (MemorySearch graph = LuceneMemorySearch.builder(store, embedder).exactVectorSearchUpTo(0)
                .backgroundInterval(Duration.ZERO).build()) {
            SearchRequest all = SearchRequest.builder(ANA, "string instrument").domains(SearchDomain.ARCHIVAL)
                    .mode(SearchMode.VECTOR).k(3).build();
            assertThat(graph.search(all)).extracting(SearchHit::id)
                    .containsExactlyElementsOf(search.search(all).stream().map(SearchHit::id).toList());
            // A time range keeps its filter even though the scope is everything.
            Instant cut = entries.get(3).updatedAt();
            SearchRequest since = SearchRequest.builder(ANA, "string instrument").domains(SearchDomain.ARCHIVAL)
                    .mode(SearchMode.VECTOR).from(cut).k(6).build();
            assertThat(graph.search(since)).extracting(SearchHit::id).containsExactlyInAnyOrderElementsOf(
                    entries.subList(3, 6).stream().map(ArchivalEntry::id).toList());
            // Another scope's document makes the filter necessary again.
            store.archival().insert(BEN, NewArchivalEntry.of("ben's violin is in the attic"));
            assertThat(graph.search(all)).extracting(SearchHit::text).doesNotContain("ben's violin is in the attic");
        }
    }

    @Test
    void exactAndGraphVectorSearchAgreeAndKeepToTheScope() {
        for (String f : FACTS) {
            store.archival().insert(ANA, NewArchivalEntry.of(f));
        }
        store.archival().insert(BEN, NewArchivalEntry.of("ben's violin is in the attic"));
        try (MemorySearch graph = LuceneMemorySearch.builder(store, embedder).exactVectorSearchUpTo(0)
                .backgroundInterval(Duration.ZERO).build()) {
            for (String q : List.of("string instrument", "travel plans", "baking")) {
                SearchRequest r = SearchRequest.builder(ANA, q).mode(SearchMode.VECTOR).k(3).build();
                List<SearchHit> exact = search.search(r);
                assertThat(exact).hasSize(3).extracting(SearchHit::text).doesNotContain("ben's violin is in the attic");
                assertThat(graph.search(r)).extracting(SearchHit::id).containsExactlyElementsOf(
                        exact.stream().map(SearchHit::id).toList());
                assertThat(graph.search(r).getFirst().score()).isCloseTo(exact.getFirst().score(),
                        org.assertj.core.api.Assertions.within(1e-6));
            }
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LuceneMemorySearch.builder(store, embedder).exactVectorSearchUpTo(-1))
                .hasMessage("exact vector search limit must not be negative, got -1");
    }

    @Test
    void reindexRebuildsTheSameResults() {
        store.archival().insert(ANA, NewArchivalEntry.of("alpha bravo charlie"));
        store.notes().save("ana", "delta echo");
        List<SearchHit> before = find(ANA, "alpha delta");
        List<long[]> progress = new ArrayList<>();
        search.reindex((done, total) -> progress.add(new long[] {done, total}));
        assertThat(find(ANA, "alpha delta")).extracting(SearchHit::id)
                .containsExactlyElementsOf(before.stream().map(SearchHit::id).toList());
        assertThat(progress).isNotEmpty();
        assertThat(progress.get(progress.size() - 1)[0]).isEqualTo(progress.get(progress.size() - 1)[1]);
    }

    @Test
    void conversationContextMakesARepliesFindableByItsQuestionAndAQuestionByItsReply() {
        store.messages().appendAll(ANA, List.of(
                NewMessage.user("s1", "Which city did you move to last spring?"),
                NewMessage.assistant("s1", "Porto, and I love it there.", List.of()),
                NewMessage.user("s2", "Any plans for the weekend?")));
        search.close();
        search = LuceneMemorySearch.builder(store, embedder).conversationContext(0, 0).backgroundInterval(Duration.ZERO).build();
        List<SearchHit> plain = search.search(SearchRequest.builder(ANA, "which city did she move to").mode(SearchMode.BM25).build());
        assertThat(plain).extracting(SearchHit::text).doesNotContain("Porto, and I love it there.");
        search.close();
        search = LuceneMemorySearch.builder(store, embedder).backgroundInterval(Duration.ZERO).build(); // the default: 2 before, 1 after
        List<SearchHit> withContext = search.search(SearchRequest.builder(ANA, "which city did she move to").mode(SearchMode.BM25).build());
        assertThat(withContext).extracting(SearchHit::text).contains("Porto, and I love it there.");
        assertThat(search.search(SearchRequest.builder(ANA, "porto").mode(SearchMode.BM25).build())).extracting(SearchHit::text)
                .contains("Which city did you move to last spring?");
        // Context never crosses sessions, and hits show the message alone.
        assertThat(search.search(SearchRequest.builder(ANA, "weekend").mode(SearchMode.BM25).build()))
                .extracting(SearchHit::text).containsExactly("Any plans for the weekend?");
        assertThat(search.search(SearchRequest.builder(ANA, "city").mode(SearchMode.BM25).k(5).build()))
                .extracting(SearchHit::text).doesNotContain("Any plans for the weekend?");
        assertThatThrownBy(() -> LuceneMemorySearch.builder(store, embedder).conversationContext(11, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LuceneMemorySearch.builder(store, embedder).conversationContext(2, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A message that arrives later joins the text of the one before it, which is written again without being embedded again. */
    @Test
    void aLaterMessageJoinsTheTextOfTheOneBeforeItWithoutEmbeddingItAgain() {
        WatchingEmbedder counting = new WatchingEmbedder("\u0000never");
        search.close();
        search = LuceneMemorySearch.builder(store, counting).backgroundInterval(Duration.ZERO).build();
        store.messages().append(ANA, NewMessage.user("s1", "Any plans for the weekend?"));
        assertThat(search.search(SearchRequest.builder(ANA, "sailing").mode(SearchMode.BM25).build())).isEmpty();
        store.messages().append(ANA, NewMessage.assistant("s1", "Sailing on the lake with my sister.", List.of()));
        assertThat(search.search(SearchRequest.builder(ANA, "sailing").mode(SearchMode.BM25).build())).extracting(SearchHit::text)
                .containsExactlyInAnyOrder("Any plans for the weekend?", "Sailing on the lake with my sister.");
        assertThat(counting.seen).filteredOn(t -> t.equals("Any plans for the weekend?")).as("embedded once").hasSize(1);
        // The date of each message is part of what BM25 sees.
        String today = java.time.format.DateTimeFormatter.ofPattern("d MMMM yyyy", java.util.Locale.ENGLISH)
                .withZone(java.time.ZoneOffset.UTC).format(store.messages().list(ANA, MessageQuery.all()).getFirst().createdAt());
        assertThat(search.search(SearchRequest.builder(ANA, today).mode(SearchMode.BM25).build())).hasSize(2);
    }

    /** Per-domain weights in one search over documents and messages: each hit is weighed by its own domain's weights. */
    @Test
    void aMixedSearchWeighsEachHitByItsDomain() {
        store.archival().insertAll(ANA, List.of(NewArchivalEntry.of("The boat trip to Porto was on Tuesday"),
                NewArchivalEntry.of("Quarterly taxes are due in April")));
        store.messages().appendAll(ANA, List.of(NewMessage.user("s1", "We sailed to Porto on a small boat"),
                NewMessage.user("s1", "My tax return is late again")));
        List<SearchHit> hits = search.search(SearchRequest.builder(ANA, "boat trip to Porto")
                .domains(SearchDomain.ARCHIVAL, SearchDomain.CONVERSATIONS).k(10)
                .fusion(Fusion.weighted(1, 0).forConversations(0, 1)).build());
        assertThat(hits).hasSize(4);
        for (SearchHit h : hits) {
            if (h.domain() == SearchDomain.ARCHIVAL) {
                assertThat(h.score() > 0).as("an entry scores by BM25 alone: %s", h.text()).isEqualTo(h.bm25().isPresent()
                        && h.bm25().get().rank() < lastRank(hits, true));
            } else {
                assertThat(h.score() > 0).as("a message scores by its vector alone: %s", h.text()).isEqualTo(h.vector().isPresent()
                        && h.vector().get().rank() < lastRank(hits, false));
            }
        }
    }

    /** The rank of the last hit of the BM25 (or vector) list, which min-max normalisation brings to 0. */
    private static int lastRank(List<SearchHit> hits, boolean bm25) {
        return hits.stream().map(h -> bm25 ? h.bm25() : h.vector()).flatMap(java.util.Optional::stream)
                .mapToInt(SearchHit.Component::rank).max().orElse(0);
    }

    @Test
    void aClosedIndexRefusesWork() {
        search.close();
        assertThatThrownBy(() -> find(ANA, "x")).isInstanceOf(MemoryException.class).hasMessage("The search index is closed.");
        search.close();
    }
}
