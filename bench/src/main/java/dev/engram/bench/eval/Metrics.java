package dev.engram.bench.eval;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Standard ranking metrics, as BEIR (pytrec_eval) and the LoCoMo paper compute them. */
public final class Metrics {
    private Metrics() {
    }

    /**
     * nDCG@k with linear gains: DCG = sum of rel(i) / log2(i + 1) over the top k, divided by the DCG
     * of the ideal ranking of the judged documents.
     */
    public static double ndcg(List<String> ranked, Map<String, Integer> relevance, int k) {
        double dcg = 0;
        for (int i = 0; i < Math.min(k, ranked.size()); i++) {
            int rel = relevance.getOrDefault(ranked.get(i), 0);
            dcg += rel / log2(i + 2);
        }
        List<Integer> ideal = relevance.values().stream().filter(r -> r > 0).sorted((a, b) -> b - a).toList();
        double idcg = 0;
        for (int i = 0; i < Math.min(k, ideal.size()); i++) {
            idcg += ideal.get(i) / log2(i + 2);
        }
        return idcg == 0 ? 0 : dcg / idcg;
    }

    /** Fraction of the relevant items found in the top k. */
    public static double recall(List<String> ranked, Collection<String> relevant, int k) {
        if (relevant.isEmpty()) {
            return 0;
        }
        Set<String> top = Set.copyOf(ranked.subList(0, Math.min(k, ranked.size())));
        return relevant.stream().filter(top::contains).count() / (double) relevant.size();
    }

    private static double log2(double x) {
        return Math.log(x) / Math.log(2);
    }
}
