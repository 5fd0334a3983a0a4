package dev.engram.cli;

import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.Fusion;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.memory.SearchMode;
import dev.engram.bench.eval.EvalSetup;
import dev.engram.bench.eval.EvalTables;
import dev.engram.bench.eval.LoCoMoEval;
import dev.engram.bench.eval.SciFactEval;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code engram eval scifact|locomo}: the retrieval-quality harness; the last line is the headline figure. */
@Command(name = "eval", mixinStandardHelpOptions = true, description = "Measure retrieval quality on SciFact or LoCoMo.",
        subcommands = {EvalCommands.SciFact.class, EvalCommands.LoCoMo.class})
final class EvalCommands extends GroupCommand {

    abstract static class EvalCommand extends BaseCommand {
        @Option(names = "--mode", paramLabel = "MODE", description = "bm25, vector or hybrid (repeatable); default all three.")
        Set<SearchMode> modes;

        @Option(names = "--model", paramLabel = "NAME",
                description = "The embedding model: minilm or bge-small; default " + EmbeddingModel.DEFAULT_NAME + ".")
        String model;

        @Option(names = "--fusion", paramLabel = "SPEC",
                description = "How hybrid fuses: rrf, rrf:K or weighted:BM25,VECTOR; default " + Fusion.DEFAULT_SPEC + ".")
        String fusion;

        @Option(names = "--candidates", paramLabel = "N",
                description = "How deep each retriever looks before fusing; default " + LuceneMemorySearch.DEFAULT_CANDIDATES + ".")
        Integer candidates;

        @Option(names = "--context", paramLabel = "BEFORE,AFTER", split = ",",
                description = "Neighbouring messages BM25 sees with each conversation message; default "
                        + LuceneMemorySearch.DEFAULT_CONTEXT_BEFORE + "," + LuceneMemorySearch.DEFAULT_CONTEXT_AFTER + ".")
        List<Integer> context;

        EvalSetup setup(OnnxEmbedder embedder) {
            EvalSetup d = EvalSetup.defaults(embedder);
            Fusion f;
            try {
                f = fusion == null ? d.fusion() : Fusion.parse(fusion);
            } catch (IllegalArgumentException e) {
                throw usage("--fusion: " + e.getMessage());
            }
            if (context != null && (context.size() != 2 || context.stream().anyMatch(c -> c < 0 || c > 10))) {
                throw usage("--context takes two numbers of messages, before and after, each 0 to 10, e.g. 2,1; got " + context);
            }
            int n = candidates == null ? d.candidates() : candidates;
            if (n < 10 || n > 10_000) {
                throw usage("--candidates must be between 10 and 10000, got " + n);
            }
            return new EvalSetup(embedder, modes == null || modes.isEmpty() ? EnumSet.allOf(SearchMode.class) : modes, f, n,
                    context == null ? d.contextBefore() : context.get(0), context == null ? d.contextAfter() : context.get(1));
        }

        /** The model's short name, the library's default when none was given. */
        String modelName() {
            return model != null ? model : EmbeddingModel.defaultModel().shortName();
        }

        OnnxEmbedder embedder() {
            EmbeddingModel m;
            try {
                m = EmbeddingModel.byName(modelName());
            } catch (IllegalArgumentException e) {
                throw usage(e.getMessage());
            }
            return OnnxEmbedder.builder(m).nativeCacheDirectory(root().homeDirectory().resolve("native")).build();
        }
    }

    @Command(name = "scifact", mixinStandardHelpOptions = true, description = "BEIR SciFact: nDCG@10 and recall@100.")
    static final class SciFact extends EvalCommand {
        @Parameters(paramLabel = "DIR", description = "The dataset directory (corpus.jsonl, queries.jsonl, qrels/).")
        Path dir;

        @Option(names = "--qrels", paramLabel = "FILE", description = "Relevance judgements; default DIR/qrels/train.tsv.")
        Path qrels;

        @Override
        int run() {
            Path q = qrels != null ? qrels : dir.resolve("qrels/train.tsv");
            if (!Files.isDirectory(dir) || !Files.isRegularFile(dir.resolve("corpus.jsonl"))) {
                throw usage("Not a SciFact directory (no corpus.jsonl): " + dir);
            }
            if (!Files.isRegularFile(q)) {
                throw usage("No qrels file: " + q);
            }
            try (OnnxEmbedder embedder = embedder()) {
                ProgressBar bar = new ProgressBar(err(), "index");
                EvalSetup setup = setup(embedder);
                out().println(setup.describe(modelName()));
                out().flush();
                SciFactEval.Report report = SciFactEval.run(dir, q, setup, bar::update);
                bar.done();
                out().println(EvalTables.sciFact(modelName(), report));
                out().println(EvalTables.sciFactHeadline(report));
            }
            return 0;
        }
    }

    @Command(name = "locomo", mixinStandardHelpOptions = true, description = "LoCoMo: recall@k of evidence turns.")
    static final class LoCoMo extends EvalCommand {
        @Parameters(paramLabel = "FILE", description = "locomo JSON (e.g. locomo-dev.json).")
        Path file;

        @Override
        int run() {
            if (!Files.isRegularFile(file)) {
                throw usage("No such file: " + file);
            }
            try (OnnxEmbedder embedder = embedder()) {
                ProgressBar bar = new ProgressBar(err(), "index");
                EvalSetup setup = setup(embedder);
                out().println(setup.describe(modelName()));
                out().flush();
                LoCoMoEval.Report report = LoCoMoEval.run(file, setup, LoCoMoEval.TurnFormat.SPEAKER_TEXT_CAPTION, bar::update);
                bar.done();
                out().println(EvalTables.loCoMo(modelName(), report));
                out().println(EvalTables.loCoMoHeadline(report));
            }
            return 0;
        }
    }
}
