package dev.engram.memory.lucene;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.WordHashEmbedder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A large batch of changes is written by several threads, each item once, a later change replacing the earlier. */
class IndexingThreadsTest {
    private static final Scope SCOPE = Scope.of("ana", "agent");

    @Test
    void aLargeBatchIsCutIntoOneSlicePerThreadAndASmallOneIsNot() {
        assertThat(IndexBatch.slices(0, 4)).isEqualTo(1);
        assertThat(IndexBatch.slices(511, 4)).isEqualTo(1);
        assertThat(IndexBatch.slices(512, 4)).isEqualTo(2);
        assertThat(IndexBatch.slices(2_048, 4)).isEqualTo(4);
        assertThat(IndexBatch.slices(100_000, 2)).isEqualTo(2);
        assertThat(IndexBatch.slices(100_000, 1)).isEqualTo(1);
    }

    @Test
    void byDefaultAsManyThreadsAsProcessorsWriteUpToFour() {
        assertThat(LuceneMemorySearch.Builder.defaultIndexingThreads())
                .isEqualTo(Math.min(4, Runtime.getRuntime().availableProcessors())).isBetween(1, 4);
    }

    @Test
    void aThreadCountOutsideOneTo64IsRejectedAndTheBuilderKeepsItsSetting(@TempDir Path dir) {
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("m.db"))) {
            LuceneMemorySearch.Builder builder = LuceneMemorySearch.builder(store, new WordHashEmbedder()).indexingThreads(2);
            assertThatThrownBy(() -> builder.indexingThreads(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("indexing threads must be between 1 and 64, got 0");
            assertThatThrownBy(() -> builder.indexingThreads(65)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("indexing threads must be between 1 and 64, got 65");
            try (LuceneMemorySearch search = builder.backgroundInterval(Duration.ZERO).build()) {
                assertThat(search.awaitIndexed()).isZero();
            }
        }
    }

    @Test
    void aBulkLoadWrittenByFourThreadsHoldsEveryItemOnceAndLaterChangesReplaceIt(@TempDir Path dir) throws Exception {
        Path index = dir.resolve("index");
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("m.db"))) {
            store.archival().insertAll(SCOPE, IntStream.range(0, 3_000)
                    .mapToObj(i -> NewArchivalEntry.labelled("l" + i, "fact w" + i + " about the garden", List.of())).toList());
            try (LuceneMemorySearch search = LuceneMemorySearch.builder(store, new WordHashEmbedder()).directory(index)
                    .indexingThreads(4).batchEvents(4_096).backgroundInterval(Duration.ZERO).build()) {
                search.awaitIndexed();
                // The same items again, changed, in one batch large enough for four threads.
                store.useTransaction(tx -> IntStream.range(0, 1_200).forEach(i -> tx.archival().append(SCOPE, "l" + i, " changed c" + i)));
                search.awaitIndexed();
            }
        }
        try (FSDirectory directory = FSDirectory.open(index); DirectoryReader reader = DirectoryReader.open(directory)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            assertThat(reader.numDocs()).isEqualTo(3_000);
            for (int i : new int[] {0, 599, 1_199, 1_200, 2_999}) {
                assertThat(searcher.count(new TermQuery(new Term(LuceneDocuments.TEXT, "w" + i)))).as("w" + i).isEqualTo(1);
            }
            assertThat(searcher.count(new TermQuery(new Term(LuceneDocuments.TEXT, "c7")))).isEqualTo(1);
            assertThat(searcher.count(new TermQuery(new Term(LuceneDocuments.TEXT, "chang")))).isEqualTo(1_200);
        }
    }
}
