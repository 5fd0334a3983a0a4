package dev.engram.bench.eval;

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
        return sb.toString();
    }

    private static String row(String mode, String category, int n, double[] values) {
        return String.format(Locale.ROOT, "%-8s %-12s %5d %6.4f %6.4f %6.4f %6.4f%n", mode, category, n,
                values[0], values[1], values[2], values[3]);
    }

    /** The headline of a SciFact report: the hybrid result (else the last mode's), e.g. {@code nDCG@10 0.7412}. */
    public static String sciFactHeadline(SciFactEval.Report report) {
        SciFactEval.Result r = report.results().stream().filter(x -> x.mode() == dev.engram.memory.SearchMode.HYBRID)
                .findFirst().orElse(report.results().get(report.results().size() - 1));
        return String.format(Locale.ROOT, "nDCG@10 %.4f", r.ndcgAt10());
    }

    /** The headline of a LoCoMo report: hybrid recall@10, e.g. {@code recall@10 0.7630}. */
    public static String loCoMoHeadline(LoCoMoEval.Report report) {
        LoCoMoEval.Result r = report.results().stream().filter(x -> x.mode() == dev.engram.memory.SearchMode.HYBRID)
                .findFirst().orElse(report.results().get(report.results().size() - 1));
        return String.format(Locale.ROOT, "recall@10 %.4f", r.recallAt(10));
    }
}
