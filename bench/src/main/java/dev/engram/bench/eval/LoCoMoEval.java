package dev.engram.bench.eval;

import dev.engram.memory.MemorySearch;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/**
 * Conversational-memory retrieval on LoCoMo: every dialog turn of a conversation is appended as a
 * message in that conversation's own scope, dated at its session's date and time (as a chat recorded
 * then would have it), each question is searched within it, and recall@5, @10,
 * @25 and @50 of the evidence turns are averaged, overall and per category (1 multi-hop, 2 temporal,
 * 3 open-domain, 4 single-hop, 5 adversarial). Evidence ids that are malformed or name no turn of the
 * conversation are skipped and counted; a question left without evidence is skipped and counted. Next to recall, each
 * mode reports what its retrieval costs ({@link RetrievalCost}): the context tokens of the top {@link #COST_K} hits
 * and the latency of each search.
 */
public final class LoCoMoEval {
    public static final int[] CUTOFFS = {5, 10, 25, 50};
    /** The hits whose context tokens a result's {@link RetrievalCost} counts: recall@10's. */
    public static final int COST_K = 10;
    public static final Map<Integer, String> CATEGORIES = Map.of(1, "multi-hop", 2, "temporal", 3, "open-domain",
            4, "single-hop", 5, "adversarial");

    /** How a turn becomes message text: with or without the caption of a shared image. */
    public enum TurnFormat {
        /** {@code Speaker: text}. */
        SPEAKER_TEXT,
        /** {@code Speaker: text [shared an image: caption]}, as a chat client records a shared photo. The default. */
        SPEAKER_TEXT_CAPTION
    }

    /** Recall at each cutoff for one mode: overall, and per category; and what its searches cost ({@link #COST_K} hits). */
    public record Result(SearchMode mode, int questions, double[] overall, Map<Integer, double[]> byCategory,
            Map<Integer, Integer> questionsByCategory, RetrievalCost cost) {
        public double recallAt(int cutoff) {
            for (int i = 0; i < CUTOFFS.length; i++) {
                if (CUTOFFS[i] == cutoff) {
                    return overall[i];
                }
            }
            throw new IllegalArgumentException("no cutoff " + cutoff);
        }
    }

    /** Every mode's result, with the counts of what was skipped. */
    public record Report(int conversations, int turns, int questions, int skippedEvidenceIds, int skippedQuestions,
            double indexSeconds, List<Result> results) {
    }

    private LoCoMoEval() {
    }

    public static Report run(Path file, EvalSetup setup, TurnFormat format, MemorySearch.ProgressListener progress) {
        try (LoCoMoCorpus corpus = LoCoMoCorpus.load(file, format, Set.of())) {
            List<LoCoMoCorpus.Question> questions = corpus.questions.stream()
                    .filter(q -> !q.evidence().isEmpty() && !q.text().isBlank()).toList();
            int skippedQuestions = corpus.questions.size() - questions.size();
            long start = System.nanoTime();
            try (MemorySearch search = setup.openSearch(corpus.store)) {
                search.reindex(progress);
                double indexSeconds = (System.nanoTime() - start) / 1e9;
                int max = CUTOFFS[CUTOFFS.length - 1];
                List<Result> results = new ArrayList<>();
                for (SearchMode mode : setup.orderedModes()) {
                    double[] overall = new double[CUTOFFS.length];
                    Map<Integer, double[]> byCategory = new TreeMap<>();
                    Map<Integer, Integer> counts = new TreeMap<>();
                    RetrievalCost.Meter meter = new RetrievalCost.Meter(COST_K, max);
                    for (LoCoMoCorpus.Question q : questions) {
                        long began = System.nanoTime();
                        List<SearchHit> hits = search.search(SearchRequest.builder(q.scope(), q.text())
                                .domains(SearchDomain.CONVERSATIONS).k(max).mode(mode).fusion(setup.fusion()).build());
                        meter.record(hits, System.nanoTime() - began);
                        Map<Long, String> ids = corpus.turnOf.get(q.scope());
                        List<String> ranked = hits.stream().map(h -> ids.get(Long.parseLong(h.id()))).toList();
                        double[] cat = byCategory.computeIfAbsent(q.category(), k -> new double[CUTOFFS.length]);
                        counts.merge(q.category(), 1, Integer::sum);
                        for (int i = 0; i < CUTOFFS.length; i++) {
                            double r = Metrics.recall(ranked, q.evidence(), CUTOFFS[i]);
                            if (CUTOFFS[i] == COST_K) {
                                setup.perQuestion().record(mode, q.scope().agentId(), q.category(), r);
                            }
                            overall[i] += r;
                            cat[i] += r;
                        }
                    }
                    for (int i = 0; i < CUTOFFS.length; i++) {
                        overall[i] /= questions.size();
                    }
                    byCategory.forEach((k, v) -> {
                        for (int i = 0; i < v.length; i++) {
                            v[i] /= counts.get(k);
                        }
                    });
                    results.add(new Result(mode, questions.size(), overall, new LinkedHashMap<>(byCategory), counts,
                            meter.result()));
                }
                return new Report(corpus.conversations, corpus.turns, questions.size(), corpus.skippedEvidenceIds,
                        skippedQuestions, indexSeconds, results);
            }
        }
    }

    static String render(JsonNode turn, TurnFormat format) {
        String text = turn.path("speaker").asString("?") + ": " + turn.path("text").asString("");
        String caption = turn.path("blip_caption").asString("");
        if (format == TurnFormat.SPEAKER_TEXT_CAPTION && !caption.isBlank()) {
            text += " [shared an image: " + caption + "]";
        }
        return text;
    }
}
