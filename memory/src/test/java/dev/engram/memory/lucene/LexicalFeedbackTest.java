package dev.engram.memory.lucene;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** RM3 expansion of BM25 ({@link LuceneMemorySearch.Builder#lexicalFeedback}) on a tiny corpus where it changes what is found. */
class LexicalFeedbackTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final List<String> CORPUS = List.of("apple orchard", "apple computer keyboard monitor screen",
            "orchard trees");

    /** Every text at the same vector: only BM25 tells the documents apart. */
    private record FlatEmbedder() implements Embedder {
        @Override
        public String id() {
            return "flat-2";
        }

        @Override
        public int dimensions() {
            return 2;
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            return texts.stream().map(t -> new float[] {1, 0}).toList();
        }
    }

    private static List<String> search(UnaryOperator<LuceneMemorySearch.Builder> options) {
        try (MemoryStore store = MemoryStore.inMemory()) {
            store.archival().insertAll(ANA, CORPUS.stream().map(NewArchivalEntry::of).toList());
            try (MemorySearch search = options.apply(LuceneMemorySearch.builder(store, new FlatEmbedder())
                    .backgroundInterval(Duration.ZERO)).build()) {
                return search.search(SearchRequest.builder(ANA, "apple").domains(SearchDomain.ARCHIVAL).mode(SearchMode.BM25)
                        .k(5).build()).stream().map(SearchHit::text).toList();
            }
        }
    }

    /**
     * "apple" alone finds the two texts that say it. Expanded by its best hit ("apple orchard"), the query also asks for
     * "orchard", at a quarter of the weight: "orchard trees" is found too, below both, since the query's own term
     * weighs three times as much.
     */
    @Test
    void theFirstHitsTermsExpandTheQueryAndFindATextWithoutItsWord() {
        assertThat(search(b -> b)).containsExactly("apple orchard", "apple computer keyboard monitor screen");
        assertThat(search(b -> b.lexicalFeedback(1, 5, 0.5)))
                .containsExactly("apple orchard", "apple computer keyboard monitor screen", "orchard trees");
        // Weight 0 keeps the query as it was.
        assertThat(search(b -> b.lexicalFeedback(1, 5, 0))).containsExactly("apple orchard",
                "apple computer keyboard monitor screen");
    }

    @Test
    void lexicalFeedbackOutOfRangeIsRefusedAndTheBuilderKeepsItsDefault() {
        try (MemoryStore store = MemoryStore.inMemory()) {
            LuceneMemorySearch.Builder builder = LuceneMemorySearch.builder(store, new FlatEmbedder());
            assertThatThrownBy(() -> builder.lexicalFeedback(-1, 10, 0.5)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lexical feedback documents must be between 0 and 100, got -1");
            assertThatThrownBy(() -> builder.lexicalFeedback(10, 0, 0.5)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lexical feedback terms must be between 1 and 100, got 0");
            assertThatThrownBy(() -> builder.lexicalFeedback(10, 10, 1.5)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lexical feedback weight must be between 0 and 1, got 1.5");
        }
        assertThat(search(b -> {
            assertThatThrownBy(() -> b.lexicalFeedback(5, 10, Double.NaN)).isInstanceOf(IllegalArgumentException.class);
            return b;
        })).containsExactly("apple orchard", "apple computer keyboard monitor screen");
    }
}
