package dev.engram.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsTest {
    @Test
    void ndcgMatchesAHandComputedValue() {
        // Relevant: a (rank 1) and c (rank 3); d relevant but not retrieved.
        double dcg = 1 / log2(2) + 1 / log2(4);
        double idcg = 1 / log2(2) + 1 / log2(3) + 1 / log2(4);
        assertThat(Metrics.ndcg(List.of("a", "b", "c"), Map.of("a", 1, "c", 1, "d", 1), 10)).isCloseTo(dcg / idcg, offset(1e-12));
        assertThat(Metrics.ndcg(List.of("a", "b"), Map.of("a", 1), 10)).isEqualTo(1.0);
        assertThat(Metrics.ndcg(List.of("b", "a"), Map.of("a", 1), 1)).isZero();
        assertThat(Metrics.ndcg(List.of(), Map.of("a", 1), 10)).isZero();
    }

    @Test
    void gradedRelevanceUsesLinearGains() {
        double dcg = 1 / log2(2) + 2 / log2(3);
        double idcg = 2 / log2(2) + 1 / log2(3);
        assertThat(Metrics.ndcg(List.of("x", "y"), Map.of("x", 1, "y", 2), 10)).isCloseTo(dcg / idcg, offset(1e-12));
    }

    @Test
    void recallCountsTheRelevantItemsInTheTopK() {
        assertThat(Metrics.recall(List.of("a", "b", "c", "d"), List.of("a", "d", "z"), 2)).isCloseTo(1 / 3.0, offset(1e-12));
        assertThat(Metrics.recall(List.of("a", "b", "c", "d"), List.of("a", "d", "z"), 4)).isCloseTo(2 / 3.0, offset(1e-12));
        assertThat(Metrics.recall(List.of("a"), List.of(), 5)).isZero();
    }

    private static double log2(double x) {
        return Math.log(x) / Math.log(2);
    }
}
