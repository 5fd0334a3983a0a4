package dev.engram.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetrievalCostTest {
    private static SearchHit hit(String text) {
        return new SearchHit("1", SearchDomain.ARCHIVAL, text, Instant.EPOCH, 1, Optional.empty(), Optional.empty());
    }

    @Test
    void tokensAreCountedWithGpt4oEncodingOverTheTopKHitsOnly() {
        assertThat(RetrievalCost.tokens("hello world")).isEqualTo(2);
        List<SearchHit> hits = List.of(hit("hello world"), hit("hello world"), hit("a much longer hit that is not counted"));
        assertThat(RetrievalCost.tokens(hits, 2)).isEqualTo(4);
        assertThat(RetrievalCost.tokens(hits, 10)).isEqualTo(4 + RetrievalCost.tokens("a much longer hit that is not counted"));
    }

    @Test
    void percentilesUseTheNearestRank() {
        double[] values = new double[100];
        for (int i = 0; i < 100; i++) {
            values[i] = 100 - i; // 100 .. 1, unsorted
        }
        assertThat(RetrievalCost.percentile(values, 50)).isEqualTo(50);
        assertThat(RetrievalCost.percentile(values, 95)).isEqualTo(95);
        assertThat(RetrievalCost.percentile(new double[] {7}, 95)).isEqualTo(7);
        assertThat(RetrievalCost.percentile(new double[0], 95)).isZero();
    }

    @Test
    void aMeterReportsMeanAndPercentilesOfTokensAndLatency() {
        RetrievalCost.Meter meter = new RetrievalCost.Meter(1, 50);
        meter.record(List.of(hit("hello world")), 2_000_000);
        meter.record(List.of(hit("hello")), 4_000_000);
        RetrievalCost cost = meter.result();
        assertThat(cost.queries()).isEqualTo(2);
        assertThat(cost.k()).isEqualTo(1);
        assertThat(cost.meanTokens()).isEqualTo(1.5);
        assertThat(cost.p95Tokens()).isEqualTo(2);
        assertThat(cost.p50Millis()).isEqualTo(2.0);
        assertThat(cost.p95Millis()).isEqualTo(4.0);
        assertThat(cost.searchedDepth()).isEqualTo(50);
        assertThat(EvalTables.cost(List.of(Map.entry(SearchMode.HYBRID, cost)))).isEqualTo("""
                cost       k  tokens  p95 tok  search p50 ms  p95 ms  (each search for 50 hits)
                hybrid     1     1.5        2           2.00    4.00
                """);
        assertThat(EvalTables.costLine(cost)).isEqualTo("2 context tokens for 1 hits, search p50 2.0 ms, p95 4.0 ms");
    }
}
