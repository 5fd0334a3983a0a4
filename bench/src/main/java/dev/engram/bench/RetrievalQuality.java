package dev.engram.bench;

import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.Fusion;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.memory.SearchMode;
import dev.engram.bench.eval.CachingEmbedder;
import dev.engram.bench.eval.CandidateDump;
import dev.engram.bench.eval.EvalSetup;
import dev.engram.bench.eval.EvalTables;
import dev.engram.bench.eval.LoCoMoEval;
import dev.engram.bench.eval.SciFactEval;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Retrieval quality on SciFact and LoCoMo, BM25, vector and hybrid side by side for each embedding
 * model. Usage:
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.engram.bench.RetrievalQuality [scifact|locomo|all]
 *      [--data DIR] [--models minilm,bge-small] [--fusion rrf[:K]|weighted:BM25,VECTOR] [--candidates N]
 *      [--turns text|caption] [--context BEFORE,AFTER] [--embedding-cache DIR] [--[no-]complete-scores]
 *      [--feedback DOCS,WEIGHT] [--lexical-feedback DOCS,TERMS,WEIGHT] [--title-weight W] [--embedded-context N]
 *      [--dump FILE] [--dump-candidates PREFIX]
 * </pre>
 *
 * <p>{@code --complete-scores} (the default) or {@code --no-complete-scores}, {@code --feedback} and {@code --lexical-feedback} turn on the index's
 * {@link LuceneMemorySearch.Builder#completeFusionScores}, {@link LuceneMemorySearch.Builder#vectorFeedback} and
 * {@link LuceneMemorySearch.Builder#lexicalFeedback}; {@code --title-weight} and {@code --embedded-context} set
 * {@link LuceneMemorySearch.Builder#titleWeight} and {@link LuceneMemorySearch.Builder#embeddedContext};
 * {@code --dump FILE} writes each question's figure (model, mode, conversation or query id, category, recall@10 or
 * nDCG@10) as tab-separated lines, for choosing settings on folds; {@code --dump-candidates PREFIX} measures nothing and
 * writes each question's BM25 and vector lists instead ({@link CandidateDump}, PREFIX-MODEL-SET.tsv), from which
 * {@code bench/retrieval-fusion.py} computes fusions.
 *
 * Without options it measures the library's defaults ({@link EvalSetup#defaults}) for every model. With
 * {@code --embedding-cache DIR} every vector computed is kept in DIR and read back by later runs, so that settings that
 * change only the index or the fusion are measured without embedding again.
 */
public final class RetrievalQuality {
    private RetrievalQuality() {
    }

    public static void main(String[] args) {
        String which = "all";
        Path data = Path.of("../shared/data");
        List<EmbeddingModel> models = List.of(EmbeddingModel.values());
        Fusion fusion = Fusion.defaults();
        int candidates = LuceneMemorySearch.DEFAULT_CANDIDATES;
        int before = LuceneMemorySearch.DEFAULT_CONTEXT_BEFORE;
        int after = LuceneMemorySearch.DEFAULT_CONTEXT_AFTER;
        LoCoMoEval.TurnFormat turns = LoCoMoEval.TurnFormat.SPEAKER_TEXT_CAPTION;
        Path cache = null;
        Path dump = null;
        Path candidatesDump = null;
        boolean complete = LuceneMemorySearch.DEFAULT_COMPLETE_FUSION_SCORES;
        int feedbackDocs = 0;
        double feedbackWeight = 0;
        double[] lexical = {0, 10, 0};
        double title = LuceneMemorySearch.DEFAULT_TITLE_WEIGHT;
        int embedded = LuceneMemorySearch.DEFAULT_EMBEDDED_CONTEXT;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = Path.of(args[++i]);
                case "--embedding-cache" -> cache = Path.of(args[++i]);
                case "--dump" -> dump = Path.of(args[++i]);
                case "--dump-candidates" -> candidatesDump = Path.of(args[++i]);
                case "--complete-scores" -> complete = true;
                case "--no-complete-scores" -> complete = false;
                case "--feedback" -> {
                    String[] f = args[++i].split(",");
                    feedbackDocs = Integer.parseInt(f[0]);
                    feedbackWeight = Double.parseDouble(f[1]);
                }
                case "--lexical-feedback" -> {
                    String[] f = args[++i].split(",");
                    lexical = new double[] {Integer.parseInt(f[0]), Integer.parseInt(f[1]), Double.parseDouble(f[2])};
                }
                case "--title-weight" -> title = Double.parseDouble(args[++i]);
                case "--embedded-context" -> embedded = Integer.parseInt(args[++i]);
                case "--models" -> models = List.of(args[++i].split(",")).stream().map(EmbeddingModel::byName).toList();
                case "--fusion" -> fusion = Fusion.parse(args[++i]);
                case "--candidates" -> candidates = Integer.parseInt(args[++i]);
                case "--context" -> {
                    String[] c = args[++i].split(",");
                    before = Integer.parseInt(c[0]);
                    after = c.length > 1 ? Integer.parseInt(c[1]) : 0;
                }
                case "--turns" -> turns = args[++i].equals("text") ? LoCoMoEval.TurnFormat.SPEAKER_TEXT
                        : LoCoMoEval.TurnFormat.SPEAKER_TEXT_CAPTION;
                default -> which = args[i];
            }
        }
        Path scifact = data.resolve("scifact");
        Path locomo = data.resolve("locomo/locomo-dev.json");
        List<String> headlines = new ArrayList<>();
        Path vectors = cache;
        boolean completeScores = complete;
        int fbDocs = feedbackDocs;
        double fbWeight = feedbackWeight;
        double[] rm3 = lexical;
        double titleWeight = title;
        int embeddedBefore = embedded;
        UnaryOperator<LuceneMemorySearch.Builder> options = b -> b.completeFusionScores(completeScores).vectorFeedback(fbDocs, fbWeight)
                .lexicalFeedback((int) rm3[0], (int) rm3[1], rm3[2]).titleWeight(titleWeight).embeddedContext(embeddedBefore);
        List<String> perQuestion = new ArrayList<>();
        for (EmbeddingModel model : models) {
            try (Embedder embedder = vectors == null ? OnnxEmbedder.builder(model).build()
                    : CachingEmbedder.over(OnnxEmbedder.builder(model).build(), vectors)) {
                String name = model.shortName();
                EvalSetup setup = new EvalSetup(embedder, EnumSet.allOf(SearchMode.class), fusion, candidates, before, after,
                        options, (mode, group, category, value) -> perQuestion.add(name + "\t" + mode + "\t" + group + "\t"
                                + category + "\t" + value));
                System.out.println(setup.describe(model.shortName()) + (completeScores ? ", complete scores" : ", scores not completed")
                        + (fbDocs > 0 ? ", vector feedback " + fbDocs + "," + fbWeight : "")
                        + ", title weight " + titleWeight + ", embedded context " + embeddedBefore
                        + (rm3[0] > 0 ? ", lexical feedback " + (int) rm3[0] + "," + (int) rm3[1] + "," + rm3[2] : ""));
                if (candidatesDump != null) {
                    String prefix = candidatesDump.toString() + "-" + model.shortName();
                    if ((which.equals("all") || which.equals("scifact")) && Files.isDirectory(scifact)) {
                        CandidateDump.sciFact(scifact, scifact.resolve("qrels/train.tsv"), setup, Path.of(prefix + "-scifact.tsv"));
                    }
                    if ((which.equals("all") || which.equals("locomo")) && Files.isRegularFile(locomo)) {
                        CandidateDump.loCoMo(locomo, setup, turns, Path.of(prefix + "-locomo.tsv"));
                    }
                    headlines.add("candidates written to " + prefix + "-*.tsv");
                    continue;
                }
                if ((which.equals("all") || which.equals("scifact")) && Files.isDirectory(scifact)) {
                    SciFactEval.Report report = SciFactEval.run(scifact, scifact.resolve("qrels/train.tsv"), setup, (d, t) -> { });
                    System.out.println(EvalTables.sciFact(model.shortName(), report));
                    headlines.add("SciFact " + model.shortName() + " hybrid " + EvalTables.sciFactHeadline(report) + " ("
                            + EvalTables.costLine(report.results().getLast().cost()) + ")");
                }
                if ((which.equals("all") || which.equals("locomo")) && Files.isRegularFile(locomo)) {
                    LoCoMoEval.Report report = LoCoMoEval.run(locomo, setup, turns, (d, t) -> { });
                    System.out.println(EvalTables.loCoMo(model.shortName(), report));
                    headlines.add("LoCoMo " + model.shortName() + " hybrid " + EvalTables.loCoMoHeadline(report) + " ("
                            + EvalTables.costLine(report.results().getLast().cost()) + ")");
                }
            }
        }
        if (headlines.isEmpty()) {
            System.err.println("No data set found under " + data.toAbsolutePath() + " (expected scifact/ and locomo/locomo-dev.json).");
            System.exit(1);
        }
        headlines.forEach(System.out::println);
        if (dump != null) {
            try {
                Files.write(dump, perQuestion);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + dump, e);
            }
        }
    }
}
