package dev.engram.bench.eval;

import com.knuddels.jtokkit.api.EncodingType;
import dev.engram.agents.TokenCounter;
import dev.engram.memory.SearchHit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What retrieval costs, as the published memory systems report it next to their quality: the context tokens the top
 * {@code k} hits of a query put into a prompt (their text counted with jtokkit's {@code o200k_base}, the encoding of
 * GPT-4o and later OpenAI models), and the latency of one search, both over every query.
 *
 * @param queries       how many searches were measured
 * @param k             how many hits the tokens count (the figure's cutoff, such as 10 for recall@10)
 * @param meanTokens    the mean context tokens of the top {@code k} hits per query
 * @param p95Tokens     the 95th percentile of those tokens
 * @param p50Millis     the median latency of one search (embedding the query included), in milliseconds
 * @param p95Millis     the 95th percentile of that latency
 * @param searchedDepth how many hits each timed search asked for (the eval's deepest cutoff)
 */
public record RetrievalCost(int queries, int k, double meanTokens, int p95Tokens, double p50Millis, double p95Millis,
        int searchedDepth) {
    private static final TokenCounter TOKENS = TokenCounter.encoding(EncodingType.O200K_BASE);

    /** The tokens {@code text} takes in a prompt, as the evals count them ({@code o200k_base}). */
    public static int tokens(String text) {
        return TOKENS.count(text);
    }

    /** The tokens of the first {@code k} hits' text together. */
    public static int tokens(List<SearchHit> hits, int k) {
        int sum = 0;
        for (int i = 0; i < Math.min(k, hits.size()); i++) {
            sum += tokens(hits.get(i).text());
        }
        return sum;
    }

    /** The value at percentile {@code p} (0 to 100) of {@code values} by the nearest-rank method; 0 for none. */
    static double percentile(double[] values, double p) {
        if (values.length == 0) {
            return 0;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Collects one figure per query: the hits a search returned and how long it took. Not thread-safe. */
    static final class Meter {
        private final int k;
        private final int depth;
        private final List<Integer> tokens = new ArrayList<>();
        private final List<Long> nanos = new ArrayList<>();

        Meter(int k, int depth) {
            this.k = k;
            this.depth = depth;
        }

        void record(List<SearchHit> hits, long elapsedNanos) {
            tokens.add(tokens(hits, k));
            nanos.add(elapsedNanos);
        }

        RetrievalCost result() {
            double[] t = tokens.stream().mapToDouble(Integer::doubleValue).toArray();
            double[] ms = nanos.stream().mapToDouble(n -> n / 1e6).toArray();
            return new RetrievalCost(t.length, k, Arrays.stream(t).average().orElse(0), (int) percentile(t, 95),
                    percentile(ms, 50), percentile(ms, 95), depth);
        }
    }
}
