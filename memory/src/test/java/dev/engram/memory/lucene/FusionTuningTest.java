package dev.engram.memory.lucene;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.Embedder;
import dev.engram.memory.Fusion;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The two options of a weighted hybrid search's fusion, each on a tiny corpus whose vectors are set by hand so that it
 * changes the order: candidates scored by both retrievers, and vector feedback.
 */
class FusionTuningTest {
    private static final Scope ANA = Scope.of("ana", "helper");

    /** Vectors by text: a unit vector whose dot product with the query's (the first axis) is given, in the plane of an axis. */
    private record HandEmbedder(Map<String, float[]> vectors) implements Embedder {
        static float[] at(double similarity, int axis) {
            float[] v = new float[4];
            v[0] = (float) similarity;
            v[axis] = (float) Math.sqrt(1 - similarity * similarity);
            return v;
        }

        @Override
        public String id() {
            return "hand-4";
        }

        @Override
        public int dimensions() {
            return 4;
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            return texts.stream().map(t -> vectors.getOrDefault(t, at(0, 3))).toList();
        }

        @Override
        public float[] embedQuery(String query) {
            return new float[] {1, 0, 0, 0};
        }
    }

    private static List<String> search(Map<String, float[]> vectors, Fusion fusion, UnaryOperator<LuceneMemorySearch.Builder> options) {
        try (MemoryStore store = MemoryStore.inMemory()) {
            store.archival().insertAll(ANA, vectors.keySet().stream().sorted().map(NewArchivalEntry::of).toList());
            try (MemorySearch search = options.apply(LuceneMemorySearch.builder(store, new HandEmbedder(vectors))
                    .backgroundInterval(Duration.ZERO).candidates(10)).build()) {
                return search.search(SearchRequest.builder(ANA, "apple").domains(SearchDomain.ARCHIVAL).mode(SearchMode.HYBRID)
                        .fusion(fusion).k(3).build()).stream().map(SearchHit::text).toList();
            }
        }
    }

    /**
     * "apple apple" is BM25's best and eleventh by vector, one below the ten candidates; "banana" is the vector's best and
     * no BM25 match. Counted as nothing where a list left it out, "apple apple" loses to "banana"; with its own vector
     * score read from the index, it is near the vector list's best and first.
     */
    @Test
    void aCandidateOneRetrieverFoundGetsTheOtherRetrieversScoreReadFromTheIndex() {
        Map<String, float[]> vectors = new java.util.HashMap<>();
        vectors.put("apple apple", HandEmbedder.at(0.78, 1));
        vectors.put("apple pie and a tart", HandEmbedder.at(0.1, 1));
        vectors.put("banana", HandEmbedder.at(0.95, 2));
        List<String> fillers = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            String text = "filler number " + (char) ('a' + i);
            fillers.add(text);
            vectors.put(text, HandEmbedder.at(0.90 - 0.01 * i, 2));
        }
        Fusion fusion = Fusion.weighted(0.45, 0.55);
        assertThat(search(vectors, fusion, b -> b.completeFusionScores(false))).first().isEqualTo("banana");
        assertThat(search(vectors, fusion, b -> b.completeFusionScores(true))).first().isEqualTo("apple apple");
        // On by default (issue 35, session 16): the builder without the option completes the scores.
        assertThat(search(vectors, fusion, b -> b)).first().isEqualTo("apple apple");
    }

    /**
     * The query's vector moved toward its first hit's ("apple", along the second axis) ranks "pear" (nearer that hit)
     * above "plum" (nearer the query alone), which it ranks below without feedback.
     */
    @Test
    void vectorFeedbackMovesTheQueryTowardItsFirstHitsAndReranksTheRest() {
        Map<String, float[]> vectors = Map.of("apple", HandEmbedder.at(0.9, 1), "pear", HandEmbedder.at(0.5, 1),
                "plum", HandEmbedder.at(0.6, 2));
        Fusion fusion = Fusion.weighted(0.5, 0.5);
        assertThat(search(vectors, fusion, b -> b)).containsExactly("apple", "plum", "pear");
        assertThat(search(vectors, fusion, b -> b.vectorFeedback(1, 1.0))).containsExactly("apple", "pear", "plum");
        assertThat(search(vectors, fusion, b -> b.vectorFeedback(0, 1.0))).containsExactly("apple", "plum", "pear");
    }

    @Test
    void vectorFeedbackOutOfRangeIsRefusedAndTheBuilderKeepsItsDefault() {
        Map<String, float[]> vectors = Map.of("apple", HandEmbedder.at(0.9, 1), "pear", HandEmbedder.at(0.5, 1),
                "plum", HandEmbedder.at(0.6, 2));
        try (MemoryStore store = MemoryStore.inMemory()) {
            LuceneMemorySearch.Builder builder = LuceneMemorySearch.builder(store, new HandEmbedder(vectors));
            assertThatThrownBy(() -> builder.vectorFeedback(-1, 0.5)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("vector feedback documents must be between 0 and 100, got -1");
            assertThatThrownBy(() -> builder.vectorFeedback(101, 0.5)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> builder.vectorFeedback(3, Double.NaN)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("vector feedback weight must be between 0 and 10, got NaN");
        }
        // The refused values left the builder as it was: no feedback.
        assertThat(search(vectors, Fusion.weighted(0.5, 0.5), b -> {
            assertThatThrownBy(() -> b.vectorFeedback(3, -1)).isInstanceOf(IllegalArgumentException.class);
            return b;
        })).containsExactly("apple", "plum", "pear");
    }
}
