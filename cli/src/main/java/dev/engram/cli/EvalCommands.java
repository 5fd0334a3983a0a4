package dev.engram.cli;

import dev.engram.framework.model.ChatModel;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.Fusion;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.memory.SearchMode;
import dev.engram.bench.eval.EvalSetup;
import dev.engram.bench.eval.EvalTables;
import dev.engram.bench.eval.LoCoMoAnswerEval;
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
@Command(name = "eval", mixinStandardHelpOptions = true,
        description = "Measure retrieval quality on SciFact or LoCoMo, with its cost; answer accuracy on LoCoMo with a model.",
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

    @Command(name = "locomo", mixinStandardHelpOptions = true, description = {"LoCoMo: recall@k of evidence turns.",
            "With --answer-model and --judge-model: answers each question (categories 1-4) from the retrieved messages "
                    + "and has the judge label each answer CORRECT or WRONG against the gold answer (LLM-as-a-judge, as "
                    + "in the Mem0 paper); prints accuracy overall and per category, context tokens and latency."})
    static final class LoCoMo extends EvalCommand {
        @Parameters(paramLabel = "FILE", description = "locomo JSON (e.g. locomo-dev.json).")
        Path file;

        @Option(names = "--answer-model", paramLabel = "SPEC",
                description = "The model that answers, as --model elsewhere: openai:MODEL, anthropic:MODEL, "
                        + "gemini:MODEL, ollama:MODEL, http://HOST/v1#MODEL (OpenAI-compatible) or script:FILE.")
        String answerModel;

        @Option(names = "--judge-model", paramLabel = "SPEC", description = "The model that judges the answers (a spec as "
                + "--answer-model).")
        String judgeModel;

        @Option(names = "--k", paramLabel = "N", description = "With --answer-model: messages retrieved per question, 1 to "
                + "100; default 10.")
        Integer k;

        @Option(names = "--conversations", paramLabel = "IDS", split = ",",
                description = "With --answer-model: only these conversations (sample_id, e.g. conv-26,conv-30).")
        Set<String> conversations;

        @Option(names = "--questions", paramLabel = "N",
                description = "With --answer-model: ask at most N questions (the first ones), for a quick run.")
        Integer questions;

        @Override
        int run() {
            if (!Files.isRegularFile(file)) {
                throw usage("No such file: " + file);
            }
            if (answerModel == null && judgeModel == null) {
                if (k != null || conversations != null || questions != null) {
                    throw usage("--k, --conversations and --questions choose what the answer eval asks: use them with "
                            + "--answer-model and --judge-model");
                }
                return retrieval();
            }
            if (answerModel == null || judgeModel == null) {
                throw usage("the answer eval needs both --answer-model and --judge-model (they may name the same model)");
            }
            if (modes != null && modes.size() > 1) {
                throw usage("the answer eval retrieves with one --mode, got " + modes.size());
            }
            LoCoMoAnswerEval.Options options;
            try {
                LoCoMoAnswerEval.Options d = LoCoMoAnswerEval.Options.defaults();
                options = new LoCoMoAnswerEval.Options(k == null ? d.k() : k, modes == null || modes.isEmpty() ? d.mode()
                        : modes.iterator().next(), conversations == null ? Set.of() : conversations,
                        questions == null ? d.maxQuestions() : questions);
            } catch (IllegalArgumentException e) {
                throw usage((k != null && (k < 1 || k > 100) ? "--k: " : "--questions: ") + e.getMessage());
            }
            ChatModel answers = model("--answer-model", answerModel);
            ChatModel judge = model("--judge-model", judgeModel);
            try (OnnxEmbedder embedder = embedder()) {
                EvalSetup setup = setup(embedder);
                out().println(setup.describe(modelName()) + "; answer model " + answerModel + ", judge model " + judgeModel);
                out().flush();
                ProgressBar index = new ProgressBar(err(), "index");
                ProgressBar asked = new ProgressBar(err(), "questions");
                boolean[] indexed = {false};
                LoCoMoAnswerEval.Report report;
                try {
                    report = LoCoMoAnswerEval.run(file, setup, answers, judge, options, index::update, (done, total) -> {
                        if (!indexed[0]) {
                            indexed[0] = true;
                            index.done();
                        }
                        asked.update(done, total);
                    });
                } catch (IllegalArgumentException e) {
                    throw usage(e.getMessage()); // a conversation the file does not hold
                }
                if (indexed[0]) {
                    asked.done();
                } else {
                    index.done();
                }
                out().println(EvalTables.loCoMoAnswers(report, options));
                out().println(EvalTables.loCoMoAnswersHeadline(report));
            }
            return 0;
        }

        private ChatModel model(String option, String spec) {
            try {
                return ChatModel.of(spec, root().environment());
            } catch (IllegalArgumentException e) {
                throw usage(option + ": " + e.getMessage());
            }
        }

        private int retrieval() {
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
