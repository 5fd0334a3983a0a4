package dev.engram.bench;

import dev.engram.bench.eval.CachingEmbedder;
import dev.engram.bench.eval.EvalSetup;
import dev.engram.bench.eval.EvalTables;
import dev.engram.bench.eval.LoCoMoEval;
import dev.engram.bench.eval.SciFactEval;
import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Retrieval quality of the library's defaults with and without the model's query instruction, on SciFact (train
 * queries, nDCG@10) and LoCoMo (dev conversations, recall@10): the passages' vectors are the same in every variant
 * (cached in {@code --work}, computed once), only the queries are embedded anew, with the instruction
 * ({@code prefix}) or as they are ({@code none}). Usage:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Dai.djl.offline=true -Xmx4g \
 *      -cp bench/target/benchmarks.jar dev.engram.bench.QueryPrefixQuality --work /tmp/qpq [--data ../shared/data]
 *      [--model bge-small] [--variants prefix,none]
 * </pre>
 */
public final class QueryPrefixQuality {
    private QueryPrefixQuality() {
    }

    public static void main(String[] args) {
        Path data = Path.of("../shared/data");
        Path work = null;
        EmbeddingModel model = EmbeddingModel.defaultModel();
        List<String> variants = List.of("prefix", "none");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = Path.of(args[++i]);
                case "--work" -> work = Path.of(args[++i]);
                case "--model" -> model = EmbeddingModel.byName(args[++i]);
                case "--variants" -> variants = List.of(args[++i].split(","));
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (work == null) {
            throw new IllegalArgumentException("--work DIR is required (the passages' vectors are kept there)");
        }
        Path scifact = data.resolve("scifact");
        Path locomo = data.resolve("locomo/locomo-dev.json");
        Map<String, String> headlines = new LinkedHashMap<>();
        try (Embedder documents = CachingEmbedder.over(OnnxEmbedder.builder(model).queryCache(0).build(), work)) {
            for (String variant : variants) {
                String prefix = switch (variant) {
                    case "prefix" -> model.instruction();
                    case "none" -> "";
                    default -> throw new IllegalArgumentException("unknown variant " + variant + " (prefix or none)");
                };
                try (OnnxEmbedder queries = OnnxEmbedder.builder(model).queryPrefix(prefix).queryCache(0).build()) {
                    EvalSetup setup = EvalSetup.defaults(new SplitEmbedder(documents, queries::embedQuery));
                    List<String> lines = new ArrayList<>();
                    SciFactEval.Report s = SciFactEval.run(scifact, scifact.resolve("qrels/train.tsv"), setup, (d, t) -> { });
                    System.out.println(variant + ":\n" + EvalTables.sciFact(model.shortName(), s));
                    lines.add("SciFact " + EvalTables.sciFactHeadline(s));
                    LoCoMoEval.Report l = LoCoMoEval.run(locomo, setup, LoCoMoEval.TurnFormat.SPEAKER_TEXT_CAPTION, (d, t) -> { });
                    System.out.println(variant + ":\n" + EvalTables.loCoMo(model.shortName(), l));
                    lines.add("LoCoMo " + EvalTables.loCoMoHeadline(l));
                    headlines.put(variant, String.join(", ", lines));
                }
            }
        }
        headlines.forEach((variant, line) -> System.out.println("query instruction " + variant + ": hybrid " + line));
    }
}
