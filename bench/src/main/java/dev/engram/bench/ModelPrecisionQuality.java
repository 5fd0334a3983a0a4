package dev.engram.bench;

import dev.engram.bench.eval.CachingEmbedder;
import dev.engram.bench.eval.EvalSetup;
import dev.engram.bench.eval.EvalTables;
import dev.engram.bench.eval.LoCoMoEval;
import dev.engram.bench.eval.SciFactEval;
import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.SearchMode;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Retrieval quality of the library's defaults with the bundled int8 model and another precision of it (the fp32
 * bge-small, given as a file: {@link ModelFileEmbedder}) on the passages' side and on the queries' side independently:
 * SciFact (train queries, nDCG@10) and LoCoMo (dev conversations, recall@10 per category), every combination
 * {@code PASSAGES/QUERIES} in one process, then the query embedding of each side timed in turns (p50 and CPU a query,
 * no cache). Every vector is kept in {@code --work} ({@code int8/} and {@code fp32/}, one embedding cache each), so
 * that a second run only re-fuses. Usage:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Dai.djl.offline=true -Xmx4g \
 *      -cp bench/target/benchmarks.jar dev.engram.bench.ModelPrecisionQuality --work /tmp/fp32/work \
 *      --onnx /tmp/fp32/bge-small-en-v1.5.onnx [--data ../shared/data] [--sets scifact,locomo]
 *      [--combos int8/int8,fp32/int8,fp32/fp32,int8/fp32] [--timing-queries 200] [--rounds 3]
 * </pre>
 *
 * <p>Each question's figure goes to {@code WORK/dump/COMBO-SET.tsv} (slashes as dashes), the format
 * {@code bench/retrieval-folds.py} reads. Beside each LoCoMo table a line says whether hybrid recall@10 stays at least
 * the better of BM25 and vector less 0.005 in every category (the rule of {@code EvalOnSharedDataTest}).
 */
public final class ModelPrecisionQuality {
    /** How far below the better of BM25 and vector hybrid may fall in one LoCoMo category. */
    static final double CATEGORY_SLACK = 0.005;

    private ModelPrecisionQuality() {
    }

    public static void main(String[] args) throws IOException {
        Path data = Path.of("../shared/data");
        Path work = null;
        Path onnx = null;
        EmbeddingModel model = EmbeddingModel.defaultModel();
        List<String> sets = List.of("scifact", "locomo");
        List<String> combos = List.of("int8/int8", "fp32/int8", "fp32/fp32", "int8/fp32");
        int timingQueries = 200;
        int rounds = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = Path.of(args[++i]);
                case "--work" -> work = Path.of(args[++i]);
                case "--onnx" -> onnx = Path.of(args[++i]);
                case "--model" -> model = EmbeddingModel.byName(args[++i]);
                case "--sets" -> sets = List.of(args[++i].split(","));
                case "--combos" -> combos = List.of(args[++i].split(","));
                case "--timing-queries" -> timingQueries = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (work == null || onnx == null) {
            throw new IllegalArgumentException("--work DIR (the vectors are kept there) and --onnx FILE (the other model) are required");
        }
        for (String combo : combos) {
            side(combo, 0);
            side(combo, 1);
        }
        for (String set : sets) {
            if (!set.equals("scifact") && !set.equals("locomo")) {
                throw new IllegalArgumentException("unknown set " + set + " (scifact or locomo)");
            }
        }
        Path dumps = Files.createDirectories(work.resolve("dump"));
        Map<String, String> headlines = new LinkedHashMap<>();
        try (Embedder int8 = CachingEmbedder.over(OnnxEmbedder.builder(model).queryCache(0).build(), work.resolve("int8"));
                Embedder fp32 = CachingEmbedder.over(ModelFileEmbedder.open(model, onnx, 0, model.queryPrefix()), work.resolve("fp32"))) {
            Map<String, Embedder> byName = Map.of("int8", int8, "fp32", fp32);
            for (String combo : combos) {
                Embedder documents = byName.get(side(combo, 0));
                Embedder queries = byName.get(side(combo, 1));
                List<String> lines = new ArrayList<>();
                for (String set : sets) {
                    List<String> perQuestion = new ArrayList<>();
                    EvalSetup d = EvalSetup.defaults(new SplitEmbedder(documents, queries::embedQuery));
                    EvalSetup setup = new EvalSetup(d.embedder(), d.modes(), d.fusion(), d.candidates(), d.contextBefore(),
                            d.contextAfter(), d.options(), (mode, group, category, value) -> perQuestion.add(combo + "\t"
                                    + mode + "\t" + group + "\t" + category + "\t" + value));
                    long began = System.nanoTime();
                    if (set.equals("scifact")) {
                        Path scifact = data.resolve("scifact");
                        SciFactEval.Report s = SciFactEval.run(scifact, scifact.resolve("qrels/train.tsv"), setup, (x, y) -> { });
                        System.out.println(combo + " (passages/queries):\n" + EvalTables.sciFact(model.shortName(), s));
                        lines.add("SciFact " + EvalTables.sciFactHeadline(s));
                    } else {
                        LoCoMoEval.Report l = LoCoMoEval.run(data.resolve("locomo/locomo-dev.json"), setup,
                                LoCoMoEval.TurnFormat.SPEAKER_TEXT_CAPTION, (x, y) -> { });
                        System.out.println(combo + " (passages/queries):\n" + EvalTables.loCoMo(model.shortName(), l));
                        System.out.println(categoryCheck(l));
                        lines.add("LoCoMo " + EvalTables.loCoMoHeadline(l));
                    }
                    System.out.printf(Locale.ROOT, "(%s %s took %.0f s)%n%n", combo, set, (System.nanoTime() - began) / 1e9);
                    Files.write(dumps.resolve(combo.replace('/', '-') + "-" + set + ".tsv"), perQuestion);
                }
                headlines.put(combo, String.join(", ", lines));
            }
        }
        headlines.forEach((combo, line) -> System.out.println("passages/queries " + combo + ": hybrid " + line));
        if (timingQueries > 0) {
            timeQueries(model, onnx, BenchData.loadQueries(data, timingQueries), rounds);
        }
    }

    /** The side {@code index} (0 passages, 1 queries) of a combination such as {@code fp32/int8}. */
    static String side(String combo, int index) {
        String[] parts = combo.split("/");
        if (parts.length != 2 || !List.of("int8", "fp32").containsAll(Arrays.asList(parts))) {
            throw new IllegalArgumentException("a combination is PASSAGES/QUERIES, each int8 or fp32; got " + combo);
        }
        return parts[index];
    }

    /** Whether hybrid recall@10 is at least the better of BM25 and vector less {@link #CATEGORY_SLACK} in each category. */
    static String categoryCheck(LoCoMoEval.Report report) {
        Map<SearchMode, LoCoMoEval.Result> byMode = new LinkedHashMap<>();
        report.results().forEach(r -> byMode.put(r.mode(), r));
        LoCoMoEval.Result hybrid = byMode.get(SearchMode.HYBRID);
        StringBuilder sb = new StringBuilder("hybrid R@10 against max(bm25, vector) - " + CATEGORY_SLACK + ":");
        boolean all = true;
        int at10 = Arrays.binarySearch(LoCoMoEval.CUTOFFS, 10);
        for (int category : hybrid.byCategory().keySet()) {
            double h = hybrid.byCategory().get(category)[at10];
            double best = Math.max(byMode.get(SearchMode.BM25).byCategory().get(category)[at10],
                    byMode.get(SearchMode.VECTOR).byCategory().get(category)[at10]);
            boolean ok = h >= best - CATEGORY_SLACK;
            all &= ok;
            sb.append(String.format(Locale.ROOT, " c%d %.4f/%.4f%s", category, h, best, ok ? "" : " FAILS"));
        }
        return sb.append(all ? "; holds in every category" : "; FAILS").toString();
    }

    /**
     * Times {@code embedQuery} of each side without a cache, the sides in turns within each round after one untimed
     * pass, and prints p50/p90/p99 and the process's CPU per query; then how far the two sides' vectors of a query lie
     * apart (cosine).
     */
    static void timeQueries(EmbeddingModel model, Path onnx, List<String> texts, int rounds) {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (Embedder int8 = OnnxEmbedder.builder(model).queryCache(0).build();
                Embedder fp32 = ModelFileEmbedder.open(model, onnx, 0, model.queryPrefix())) {
            Map<String, Embedder> sides = new LinkedHashMap<>();
            sides.put("int8 (bundled)", int8);
            sides.put("fp32 (" + onnx.getFileName() + ")", fp32);
            Map<String, long[]> nanos = new LinkedHashMap<>();
            Map<String, Long> cpu = new LinkedHashMap<>();
            for (Map.Entry<String, Embedder> e : sides.entrySet()) {
                texts.forEach(e.getValue()::embedQuery);
                nanos.put(e.getKey(), new long[texts.size() * rounds]);
                cpu.put(e.getKey(), 0L);
            }
            for (int r = 0; r < rounds; r++) {
                for (Map.Entry<String, Embedder> e : sides.entrySet()) {
                    long[] out = nanos.get(e.getKey());
                    long cpu0 = os.getProcessCpuTime();
                    for (int i = 0; i < texts.size(); i++) {
                        long t = System.nanoTime();
                        e.getValue().embedQuery(texts.get(i));
                        out[r * texts.size() + i] = System.nanoTime() - t;
                    }
                    cpu.merge(e.getKey(), os.getProcessCpuTime() - cpu0, Long::sum);
                }
            }
            System.out.printf(Locale.ROOT, "%nquery embedding, %d queries x %d rounds in turns, no cache, load average %.1f%n",
                    texts.size(), rounds, os.getSystemLoadAverage());
            System.out.printf(Locale.ROOT, "%-36s %8s %8s %8s %10s%n", "queries embedded by", "p50 ms", "p90 ms", "p99 ms", "CPU ms/q");
            nanos.forEach((name, v) -> {
                Arrays.sort(v);
                System.out.printf(Locale.ROOT, "%-36s %8.3f %8.3f %8.3f %10.3f%n", name, v[v.length / 2] / 1e6,
                        v[(int) (v.length * 0.9)] / 1e6, v[(int) (v.length * 0.99)] / 1e6, cpu.get(name) / 1e6 / v.length);
            });
            double lowest = 1;
            double sum = 0;
            for (String q : texts) {
                double c = BenchData.dot(int8.embedQuery(q), fp32.embedQuery(q));
                lowest = Math.min(lowest, c);
                sum += c;
            }
            System.out.printf(Locale.ROOT, "cosine of a query's int8 and fp32 vectors: mean %.4f, lowest %.4f%n", sum / texts.size(), lowest);
        }
    }
}
