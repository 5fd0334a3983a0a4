package dev.engram.memory.lucene;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.WordHashEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.index.CodecReader;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SlowCodecReaderWrapper;
import org.apache.lucene.index.SortingCodecReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The index is sorted by scope, and scoped searches read each scope as one run of documents per segment
 * ({@link ScopeDocs}): they find what the same documents in an index sorted otherwise give, and an index whose segments
 * are not sorted by scope is rebuilt from the store when opened.
 */
class SortedIndexTest {
    private static final int SCOPES = 5;
    private static final String[] WORDS = {"violin", "cello", "garden", "river", "orchard", "lantern", "harbour", "meadow"};
    /** Not sorted by scope: newest first, so that the scopes' documents interleave. */
    private static final Sort BY_TIME = new Sort(new SortField(LuceneDocuments.TIME, SortField.Type.LONG, true));

    @TempDir
    Path dir;

    private static Scope scope(int s) {
        return Scope.of("user" + s, "agent");
    }

    /** Entries of every scope inserted in turn, a note each, some entries deleted and some superseded; indexed on disk. */
    private MemoryStore filled(Path index) {
        MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));
        List<List<ArchivalEntry>> entries = new ArrayList<>();
        for (int s = 0; s < SCOPES; s++) {
            entries.add(new ArrayList<>());
        }
        for (int i = 0; i < 60; i++) {
            for (int s = 0; s < SCOPES; s++) {
                String text = "entry " + i + " of scope " + s + " about the " + WORDS[(i + s) % WORDS.length] + " and the "
                        + WORDS[(3 * i + 1) % WORDS.length] + (i % 7 == 0 ? " by the " + WORDS[i % 3] : "") + " w" + i;
                entries.get(s).add(store.archival().insert(scope(s), NewArchivalEntry.of(text)));
            }
        }
        for (int s = 0; s < SCOPES; s++) {
            store.notes().save("user" + s, "a note about the violin and the garden of user " + s);
        }
        try (LuceneMemorySearch search = LuceneMemorySearch.builder(store, new WordHashEmbedder()).directory(index)
                .backgroundInterval(Duration.ZERO).build()) {
            search.awaitIndexed();
            // Deleted and superseded after the first commit: the sorted segments then hold deleted documents.
            for (int s = 0; s < SCOPES; s++) {
                for (int i = 0; i < 60; i += 9) {
                    store.archival().delete(scope(s), entries.get(s).get(i).id());
                }
                store.archival().supersede(scope(s), entries.get(s).get(4).id(), NewArchivalEntry.of("replaced: the river cello w4"));
            }
            search.awaitIndexed();
        }
        return store;
    }

    /** The index in {@code from}, its documents copied into a new index sorted by {@code sort} (deleted ones left out). */
    private static Directory copy(Directory from, Sort sort) throws IOException {
        Directory to = new ByteBuffersDirectory();
        try (DirectoryReader reader = DirectoryReader.open(from);
                IndexWriter writer = new IndexWriter(to, new IndexWriterConfig().setIndexSort(sort))) {
            List<CodecReader> leaves = new ArrayList<>();
            for (LeafReaderContext leaf : reader.leaves()) {
                leaves.add(sorted(leaf, sort));
            }
            writer.addIndexes(leaves.toArray(CodecReader[]::new));
            writer.commit();
        }
        return to;
    }

    /** A segment's documents in the order of {@code sort}, for a writer sorted that way to take. */
    private static CodecReader sorted(LeafReaderContext leaf, Sort sort) throws IOException {
        return SortingCodecReader.wrap(SlowCodecReaderWrapper.wrap(leaf.reader()), sort);
    }

    private static List<SearchRequest> requests() {
        List<SearchRequest> out = new ArrayList<>();
        for (int s = 0; s < SCOPES; s++) {
            for (String q : List.of("violin garden", "the river and the cello", "lantern w14")) {
                for (SearchMode mode : SearchMode.values()) {
                    out.add(SearchRequest.builder(scope(s), q).mode(mode).k(80).domains(SearchDomain.ARCHIVAL).build());
                    // Two keys (archival memory and notes): two runs of documents in each segment.
                    out.add(SearchRequest.builder(scope(s), q).mode(mode).k(80)
                            .domains(SearchDomain.ARCHIVAL, SearchDomain.NOTES).build());
                }
            }
        }
        return out;
    }

    /**
     * Each hit's id and score, best first, ties by id: what must not depend on the order documents lie in. (The
     * requests take every document of the scope, and fuse by scores, not ranks: equal scores then rank alike.)
     */
    private static List<String> answers(IndexSearcher searcher, SearchRequest request) throws IOException {
        return answers(searcher, request, LuceneRetriever.SCORE_EVERY_MATCH_UP_TO);
    }

    private static List<String> answers(IndexSearcher searcher, SearchRequest request, int scoreEveryMatchUpTo)
            throws IOException {
        try (LuceneRetriever retriever = new LuceneRetriever(new EnglishAnalyzer(), new EmbedderWatch(new WordHashEmbedder()),
                LuceneMemorySearch.DEFAULT_CANDIDATES, 20_000, LuceneMemorySearch.DEFAULT_NAME_WEIGHT, 0,
                new LuceneRetriever.Tuning(true, 0, 0, 0, 0, 0), scoreEveryMatchUpTo)) {
            List<SearchHit> hits = new ArrayList<>(retriever.search(searcher, request));
            hits.sort((a, b) -> a.score() != b.score() ? Double.compare(b.score(), a.score()) : a.id().compareTo(b.id()));
            return hits.stream().map(h -> h.id() + " " + h.score()).toList();
        }
    }

    @Test
    void aScopesResultsInTheSortedIndexAreThoseOfTheSameDocumentsSortedOtherwise() throws Exception {
        Path index = dir.resolve("index");
        filled(index).close();
        try (Directory written = FSDirectory.open(index); Directory sorted = copy(written, ScopeDocs.SORT);
                Directory unsorted = copy(written, BY_TIME); DirectoryReader s = DirectoryReader.open(sorted);
                DirectoryReader u = DirectoryReader.open(unsorted)) {
            IndexSearcher byScope = new IndexSearcher(s);
            IndexSearcher byTime = new IndexSearcher(u);
            // The sorted copy is read as runs of documents, the other through the scope's postings.
            List<BytesRef> keys = List.of(new BytesRef(LuceneDocuments.scopeDomain("user1", "agent", SearchDomain.ARCHIVAL)));
            assertThat(ScopeDocs.of(byScope, keys).rangedSegments()).isEqualTo(s.leaves().size());
            assertThat(ScopeDocs.of(byTime, keys).rangedSegments()).isZero();
            assertThat(ScopeDocs.of(byScope, keys).size()).isEqualTo(ScopeDocs.of(byTime, keys).size()).isEqualTo(60 - 7 + 1);
            int found = 0;
            for (SearchRequest request : requests()) {
                List<String> expected = answers(byTime, request);
                assertThat(answers(byScope, request)).as(request.mode() + " " + request.query() + " " + request.scope())
                        .isEqualTo(expected);
                found += expected.size();
            }
            assertThat(found).isGreaterThan(1_000);
        }
    }

    /**
     * A weighted hybrid search over a small scope keeps every BM25 match's score and every vector score of its exact
     * scan; the fused hits are those of the second passes over the index for the other list's candidates, to float
     * rounding (BM25's two passes sum a document's terms in another order).
     */
    @Test
    void keepingEveryScoreOfTheFirstPassesFusesAsTheSecondPassesDid() throws Exception {
        Path index = dir.resolve("index");
        filled(index).close();
        try (Directory written = FSDirectory.open(index); DirectoryReader reader = DirectoryReader.open(written)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            int compared = 0;
            for (SearchRequest request : requests()) {
                if (request.mode() != SearchMode.HYBRID) {
                    continue;
                }
                List<String> once = answers(searcher, request);
                List<String> twice = answers(searcher, request, 0);
                assertThat(ids(once)).as(request.query() + " " + request.scope()).isEqualTo(ids(twice));
                Map<String, Double> twiceScores = new HashMap<>();
                twice.forEach(a -> twiceScores.put(a.substring(0, a.indexOf(' ')), Double.valueOf(a.substring(a.indexOf(' ') + 1))));
                for (String a : once) {
                    assertThat(Double.valueOf(a.substring(a.indexOf(' ') + 1)))
                            .isCloseTo(twiceScores.get(a.substring(0, a.indexOf(' '))), org.assertj.core.data.Offset.offset(1e-5));
                }
                compared += once.size();
            }
            assertThat(compared).isGreaterThan(300);
        }
    }

    @Test
    void theIndexAsWrittenWithDeletedDocumentsFindsWhatTheUnsortedCopyFinds() throws Exception {
        Path index = dir.resolve("index");
        filled(index).close();
        try (Directory written = FSDirectory.open(index); Directory unsorted = copy(written, BY_TIME);
                DirectoryReader w = DirectoryReader.open(written); DirectoryReader u = DirectoryReader.open(unsorted)) {
            assertThat(w.numDeletedDocs()).isPositive();
            IndexSearcher asWritten = new IndexSearcher(w);
            IndexSearcher byTime = new IndexSearcher(u);
            List<BytesRef> keys = List.of(new BytesRef(LuceneDocuments.scopeDomain("user2", "agent", SearchDomain.ARCHIVAL)));
            assertThat(ScopeDocs.of(asWritten, keys).rangedSegments()).isEqualTo(w.leaves().size());
            for (SearchRequest request : requests()) {
                if (request.mode() != SearchMode.BM25) {
                    continue; // the deleted documents still count in the written index's term statistics: compare what is found
                }
                assertThat(ids(answers(asWritten, request))).as(request.query() + " " + request.scope())
                        .isEqualTo(ids(answers(byTime, request)));
            }
        }
    }

    private static List<String> found(LuceneMemorySearch search, SearchRequest request) {
        return search.search(request).stream().map(SearchHit::id).sorted().toList();
    }

    private static List<String> ids(List<String> answers) {
        return answers.stream().map(a -> a.substring(0, a.indexOf(' '))).sorted().toList();
    }

    @Test
    void segmentsPerTierOutsideTwoToFiftyIsRefusedAndAFewSegmentsStillFindEverything() throws Exception {
        try (MemoryStore store = MemoryStore.inMemory()) {
            LuceneMemorySearch.Builder builder = LuceneMemorySearch.builder(store, new WordHashEmbedder());
            assertThatThrownBy(() -> builder.segmentsPerTier(1.5)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("segments per tier must be between 2 and 50, got 1.5");
            assertThatThrownBy(() -> builder.segmentsPerTier(51)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("segments per tier must be between 2 and 50, got 51.0");
            assertThatThrownBy(() -> builder.segmentsPerTier(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
            for (int i = 0; i < 30; i++) {
                store.archival().insert(scope(i % 3), NewArchivalEntry.of("fact " + i + " about the violin"));
            }
            try (LuceneMemorySearch search = builder.segmentsPerTier(2).batchEvents(5).backgroundInterval(Duration.ZERO).build()) {
                search.awaitIndexed();
                assertThat(search.search(SearchRequest.builder(scope(1), "violin").mode(SearchMode.BM25).k(20).build()))
                        .hasSize(10).allMatch(h -> h.text().endsWith("about the violin"));
            }
        }
    }

    @Test
    void anIndexWhoseSegmentsAreNotSortedByScopeIsRebuiltAtOpenWithNothingLost() throws Exception {
        Path index = dir.resolve("index");
        Map<SearchRequest, List<String>> before = new HashMap<>();
        long documents;
        try (MemoryStore store = filled(index)) {
            try (LuceneMemorySearch search = LuceneMemorySearch.builder(store, new WordHashEmbedder()).directory(index)
                    .backgroundInterval(Duration.ZERO).build()) {
                for (SearchRequest request : requests()) {
                    before.put(request, found(search, request));
                }
                documents = search.documentCount();
            }
            // The same documents and commit data, in segments sorted by time (as an index of an older layout, or one
            // written by other code, would be): a writer sorted by scope cannot add to it.
            try (Directory d = FSDirectory.open(index); Directory byTime = copy(d, BY_TIME)) {
                Map<String, String> data = new HashMap<>(DirectoryReader.listCommits(d).getLast().getUserData());
                try (IndexWriter w = new IndexWriter(d, new IndexWriterConfig().setIndexSort(BY_TIME)
                        .setOpenMode(IndexWriterConfig.OpenMode.CREATE)); DirectoryReader r = DirectoryReader.open(byTime)) {
                    for (LeafReaderContext leaf : r.leaves()) {
                        w.addIndexes(sorted(leaf, BY_TIME));
                    }
                    w.setLiveCommitData(data.entrySet());
                    w.commit();
                }
                assertThat(IndexCommit.olderFormat(d, data.get(IndexCommit.FORMAT_DATA))).get().asString()
                        .contains("rather than by scope");
            }
            try (LuceneMemorySearch search = LuceneMemorySearch.builder(store, new WordHashEmbedder()).directory(index)
                    .backgroundInterval(Duration.ZERO).build()) {
                // The same documents found (scores may move a little: the old index's statistics counted deleted ones).
                for (SearchRequest request : requests()) {
                    assertThat(found(search, request)).as(request.mode() + " " + request.query()).isEqualTo(before.get(request));
                }
                assertThat(search.documentCount()).isEqualTo(documents).isEqualTo(SCOPES * (60 - 7 + 1) + SCOPES);
            }
            // Rebuilt in place: nothing moved aside, and every segment is sorted by scope again.
            try (Stream<Path> siblings = Files.list(dir); Directory d = FSDirectory.open(index)) {
                assertThat(siblings.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains("broken"));
                assertThat(IndexCommit.olderFormat(d, DirectoryReader.listCommits(d).getLast().getUserData()
                        .get(IndexCommit.FORMAT_DATA))).isEmpty();
            }
        }
    }
}
