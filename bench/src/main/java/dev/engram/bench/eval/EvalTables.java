package dev.engram.bench.eval;

import dev.engram.memory.SearchMode;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Renders evaluation reports as plain-text tables; the last line holds the headline figure. */
public final class EvalTables {
    private EvalTables() {
    }

    public static String sciFact(String model, SciFactEval.Report report) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "SciFact (%d documents, %d judged queries, model %s, indexed in %.1f s)%n",
                report.documents(), report.queries(), model, report.indexSeconds()));
        sb.append(String.format(Locale.ROOT, "%-8s %9s %11s%n", "mode", "nDCG@10", "recall@100"));
        for (SciFactEval.Result r : report.results()) {
            sb.append(String.format(Locale.ROOT, "%-8s %9.4f %11.4f%n", r.mode().name().toLowerCase(Locale.ROOT),
                    r.ndcgAt10(), r.recallAt100()));
        }
        sb.append(cost(report.results().stream().map(r -> Map.entry(r.mode(), r.cost())).toList()));
        return sb.toString();
    }

    public static String loCoMo(String model, LoCoMoEval.Report report) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT,
                "LoCoMo (%d conversations, %d turns, %d questions; skipped %d malformed evidence ids, %d questions; model %s)%n",
                report.conversations(), report.turns(), report.questions(), report.skippedEvidenceIds(),
                report.skippedQuestions(), model));
        sb.append(String.format(Locale.ROOT, "%-8s %-12s %5s %6s %6s %6s %6s%n", "mode", "category", "n", "R@5", "R@10", "R@25", "R@50"));
        for (LoCoMoEval.Result r : report.results()) {
            String mode = r.mode().name().toLowerCase(Locale.ROOT);
            sb.append(row(mode, "all", r.questions(), r.overall()));
            for (Map.Entry<Integer, double[]> e : r.byCategory().entrySet()) {
                sb.append(row("", e.getKey() + " " + LoCoMoEval.CATEGORIES.getOrDefault(e.getKey(), "?"),
                        r.questionsByCategory().get(e.getKey()), e.getValue()));
            }
        }
        sb.append(cost(report.results().stream().map(r -> Map.entry(r.mode(), r.cost())).toList()));
        return sb.toString();
    }

    /**
     * What each mode's retrieval costs: the mean and 95th percentile of the context tokens of its top k hits per query,
     * and the median and 95th percentile of one search's latency, e.g.
     * <pre>
     * cost      k  tokens  p95 tok  search p50 ms  p95 ms  (each search for 50 hits)
     * hybrid   10   412.3      603           4.10    9.87
     * </pre>
     */
    public static String cost(List<Map.Entry<SearchMode, RetrievalCost>> costs) {
        StringBuilder sb = new StringBuilder();
        int depth = costs.isEmpty() ? 0 : costs.getFirst().getValue().searchedDepth();
        sb.append(String.format(Locale.ROOT, "%-8s %3s %7s %8s %14s %7s  (each search for %d hits)%n", "cost", "k",
                "tokens", "p95 tok", "search p50 ms", "p95 ms", depth));
        for (Map.Entry<SearchMode, RetrievalCost> e : costs) {
            RetrievalCost c = e.getValue();
            sb.append(String.format(Locale.ROOT, "%-8s %3d %7.1f %8d %14.2f %7.2f%n", e.getKey().name().toLowerCase(Locale.ROOT),
                    c.k(), c.meanTokens(), c.p95Tokens(), c.p50Millis(), c.p95Millis()));
        }
        return sb.toString();
    }

    private static String row(String mode, String category, int n, double[] values) {
        return String.format(Locale.ROOT, "%-8s %-12s %5d %6.4f %6.4f %6.4f %6.4f%n", mode, category, n,
                values[0], values[1], values[2], values[3]);
    }

    /** The headline of a SciFact report: the hybrid result (else the last mode's), e.g. {@code nDCG@10 0.7412}. */
    public static String sciFactHeadline(SciFactEval.Report report) {
        SciFactEval.Result r = report.results().stream().filter(x -> x.mode() == SearchMode.HYBRID)
                .findFirst().orElse(report.results().get(report.results().size() - 1));
        return String.format(Locale.ROOT, "nDCG@10 %.4f", r.ndcgAt10());
    }

    /** The headline of a LoCoMo report: hybrid recall@10, e.g. {@code recall@10 0.7630}. */
    public static String loCoMoHeadline(LoCoMoEval.Report report) {
        LoCoMoEval.Result r = report.results().stream().filter(x -> x.mode() == SearchMode.HYBRID)
                .findFirst().orElse(report.results().get(report.results().size() - 1));
        return String.format(Locale.ROOT, "recall@10 %.4f", r.recallAt(10));
    }

    /** One result's cost in words, for a summary line, e.g. {@code 412 context tokens for 10 hits, search p50 4.1 ms, p95 9.9 ms}. */
    public static String costLine(RetrievalCost cost) {
        return String.format(Locale.ROOT, "%.0f context tokens for %d hits, search p50 %.1f ms, p95 %.1f ms", cost.meanTokens(),
                cost.k(), cost.p50Millis(), cost.p95Millis());
    }

    /**
     * An answer eval's report: accuracy overall and per category (failures count as not correct), what retrieval cost,
     * the answer model's latency, then every question that could not be scored with its error.
     */
    public static String loCoMoAnswers(LoCoMoAnswerEval.Report report, LoCoMoAnswerEval.Options options) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "LoCoMo answers (%d conversations, %d turns, %d questions asked, %d skipped "
                + "as adversarial or without a gold answer, %d beyond --questions; %d %s hits per question)%n",
                report.conversations(), report.turns(), report.overall().questions(), report.skipped(), report.beyondLimit(),
                options.k(), options.mode().name().toLowerCase(Locale.ROOT)));
        sb.append(String.format(Locale.ROOT, "%-14s %5s %8s %7s %9s%n", "category", "n", "correct", "failed", "accuracy"));
        sb.append(score("all", report.overall()));
        report.byCategory().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> sb.append(score(
                e.getKey() + " " + LoCoMoEval.CATEGORIES.getOrDefault(e.getKey(), "?"), e.getValue())));
        sb.append("retrieval: ").append(costLine(report.retrieval())).append(String.format(Locale.ROOT,
                " (p95 %d tokens)%n", report.retrieval().p95Tokens()));
        sb.append(String.format(Locale.ROOT, "answer model: p50 %.1f ms, p95 %.1f ms%n", report.answerP50Millis(),
                report.answerP95Millis()));
        sb.append(report.failures().size()).append(" question(s) could not be scored (counted as not correct)")
                .append(report.failures().isEmpty() ? "" : ":").append(System.lineSeparator());
        for (LoCoMoAnswerEval.Failure f : report.failures()) {
            sb.append("  ").append(f.conversation()).append(' ').append(f.stage().name().toLowerCase(Locale.ROOT))
                    .append(": ").append(AnswerPrompts.quote(f.question())).append(": ").append(f.error())
                    .append(System.lineSeparator());
        }
        return sb.toString();
    }

    private static String score(String category, LoCoMoAnswerEval.Score s) {
        return String.format(Locale.ROOT, "%-14s %5d %8d %7d %9.4f%n", category, s.questions(), s.correct(), s.failed(),
                s.accuracy());
    }

    /** The headline of an answer eval: the accuracy over every asked question, e.g. {@code accuracy 0.6750}. */
    public static String loCoMoAnswersHeadline(LoCoMoAnswerEval.Report report) {
        return String.format(Locale.ROOT, "accuracy %.4f", report.overall().accuracy());
    }
}
