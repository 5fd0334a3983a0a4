package dev.engram.cli;

import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.memory.SearchMode;
import dev.engram.bench.eval.EvalSetup;
import dev.engram.bench.eval.EvalTables;
import dev.engram.bench.eval.LoCoMoEval;
import dev.engram.bench.eval.SciFactEval;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
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

        @Option(names = "--model", paramLabel = "NAME", defaultValue = "minilm",
                description = "The embedding model: minilm or bge-small; default ${DEFAULT-VALUE}.")
        String model;

        EvalSetup setup(OnnxEmbedder embedder) {
            EvalSetup d = EvalSetup.defaults(embedder);
            return new EvalSetup(embedder, modes == null || modes.isEmpty() ? EnumSet.allOf(SearchMode.class) : modes,
                    d.fusion(), d.candidates(), d.conversationContext());
        }

        OnnxEmbedder embedder() {
            EmbeddingModel m;
            try {
                m = EmbeddingModel.byName(model);
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
                SciFactEval.Report report = SciFactEval.run(dir, q, setup(embedder), bar::update);
                bar.done();
                out().println(EvalTables.sciFact(model, report));
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
                LoCoMoEval.Report report = LoCoMoEval.run(file, setup(embedder), LoCoMoEval.TurnFormat.SPEAKER_TEXT_CAPTION, bar::update);
                bar.done();
                out().println(EvalTables.loCoMo(model, report));
                out().println(EvalTables.loCoMoHeadline(report));
            }
            return 0;
        }
    }
}
