package dev.engram.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.memory.SearchMode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The evaluation harness end to end: a tiny BEIR set made here, and LoCoMo from {@code ../shared/data}
 * when it is there (skipped with a message otherwise). The full figures come from
 * {@code dev.engram.bench.RetrievalQuality}; this guards the harness and the retrieval behind it.
 */
class EvalOnSharedDataTest {
    @TempDir
    Path dir;

    static Path sharedData() {
        return Path.of(System.getProperty("engram.shared.data", "../../shared/data"));
    }

    @Test
    void aTinyBeirSetIsScoredCorrectly() throws Exception {
        Files.writeString(dir.resolve("corpus.jsonl"), """
                {"_id": "d1", "title": "Vitamin D", "text": "Vitamin D deficiency is linked to bone fractures."}
                {"_id": "d2", "title": "Coffee", "text": "Coffee consumption and sleep quality in adults."}
                {"_id": "d3", "title": "Exercise", "text": "Aerobic exercise improves cardiovascular health."}
                """);
        Files.writeString(dir.resolve("queries.jsonl"), """
                {"_id": "q1", "text": "low vitamin D causes broken bones"}
                {"_id": "q2", "text": "does caffeine affect sleep"}
                {"_id": "q3", "text": "unjudged query"}
                """);
        Files.writeString(dir.resolve("qrels.tsv"), "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n");
        try (OnnxEmbedder embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(2).build()) {
            SciFactEval.Report report = SciFactEval.run(dir, dir.resolve("qrels.tsv"), EvalSetup.defaults(embedder), (d, t) -> { });
            assertThat(report.documents()).isEqualTo(3);
            assertThat(report.queries()).isEqualTo(2);
            assertThat(report.results()).extracting(SciFactEval.Result::mode).containsExactly(SearchMode.BM25, SearchMode.VECTOR,
                    SearchMode.HYBRID);
            assertThat(report.results()).allSatisfy(r -> {
                assertThat(r.ndcgAt10()).isEqualTo(1.0);
                assertThat(r.recallAt100()).isEqualTo(1.0);
            });
            // the vector search ranks all three documents for each query: 10 hits cost the tokens of the whole corpus
            int corpusTokens = RetrievalCost.tokens("Vitamin D\nVitamin D deficiency is linked to bone fractures.")
                    + RetrievalCost.tokens("Coffee\nCoffee consumption and sleep quality in adults.")
                    + RetrievalCost.tokens("Exercise\nAerobic exercise improves cardiovascular health.");
            RetrievalCost vector = report.results().get(1).cost();
            assertThat(vector.queries()).isEqualTo(2);
            assertThat(vector.k()).isEqualTo(10);
            assertThat(vector.meanTokens()).isEqualTo(corpusTokens);
            assertThat(report.results()).allSatisfy(r -> assertThat(r.cost().p95Millis()).isPositive()
                    .isGreaterThanOrEqualTo(r.cost().p50Millis()));
            assertThat(EvalTables.sciFact("minilm", report)).contains("(each search for 100 hits)")
                    .containsPattern("vector    10 +" + corpusTokens + "\\.0 +" + corpusTokens + " ");
            assertThat(EvalTables.sciFactHeadline(report)).isEqualTo("nDCG@10 1.0000");
            assertThat(EvalTables.sciFact("minilm", report)).contains("hybrid      1.0000      1.0000");
        }
    }

    /**
     * The library's defaults on LoCoMo meet the retrieval targets: recall@10 at least 0.815 with hybrid, and hybrid at
     * least as good as the better of BM25 and vector in every category. ONNX Runtime may round differently on another
     * CPU, which can move a category by a question's share; the per-category check allows 0.005 for that.
     */
    @Test
    void theDefaultsMeetTheLoCoMoTargets() {
        Path file = sharedData().resolve("locomo/locomo-dev.json");
        Assumptions.assumeTrue(Files.isRegularFile(file), "LoCoMo not found at " + file.toAbsolutePath()
                + " (../shared/data is only present on the project's machines); skipping");
        try (OnnxEmbedder embedder = OnnxEmbedder.builder(EmbeddingModel.defaultModel()).threads(2).build()) {
            LoCoMoEval.Report report = LoCoMoEval.run(file, EvalSetup.defaults(embedder), LoCoMoEval.TurnFormat.SPEAKER_TEXT_CAPTION,
                    (d, t) -> { });
            System.out.println(EvalTables.loCoMo(EmbeddingModel.DEFAULT_NAME, report));
            assertThat(report.results()).allSatisfy(r -> {
                assertThat(r.cost().queries()).isEqualTo(996);
                assertThat(r.cost().k()).isEqualTo(10);
                assertThat(r.cost().meanTokens()).as("10 turns of a chat").isBetween(100.0, 2_000.0);
            });
            assertThat(report.conversations()).isEqualTo(5);
            assertThat(report.turns()).isEqualTo(2760);
            assertThat(report.skippedEvidenceIds()).isEqualTo(4);
            assertThat(report.skippedQuestions()).isEqualTo(3);
            assertThat(report.questions()).isEqualTo(996);
            LoCoMoEval.Result bm25 = report.results().get(0);
            LoCoMoEval.Result vector = report.results().get(1);
            LoCoMoEval.Result hybrid = report.results().get(2);
            assertThat(hybrid.mode()).isEqualTo(SearchMode.HYBRID);
            // The defaults give 0.8202 here (session 16: completed scores; session 17: no query instruction, 0.8203 with
            // it); 0.815 leaves a few questions' room for ONNX Runtime rounding differently on another CPU, and still
            // fails below the defaults of before (0.8164).
            assertThat(hybrid.recallAt(10)).isGreaterThanOrEqualTo(0.815);
            for (int category : hybrid.byCategory().keySet()) {
                double better = Math.max(bm25.byCategory().get(category)[1], vector.byCategory().get(category)[1]);
                assertThat(hybrid.byCategory().get(category)[1]).as("recall@10 of category %d", category)
                        .isGreaterThanOrEqualTo(better - 0.005);
            }
        }
    }
}
