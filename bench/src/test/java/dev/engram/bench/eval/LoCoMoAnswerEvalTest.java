package dev.engram.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.SearchMode;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The answer eval on a slice of the shared LoCoMo file (the first two sessions of conv-26 and six of their questions),
 * with scripted answer and judge models; skipped with a message when {@code ../shared/data} is absent.
 */
class LoCoMoAnswerEvalTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final List<String> QUESTIONS = List.of("When did Caroline go to the LGBTQ support group?",
            "When did Melanie paint a sunrise?", "What did Caroline realize after her charity race?",
            "What fields would Caroline be likely to pursue in her educaton?", "What did Caroline research?",
            "What is Caroline's identity?");

    @TempDir
    Path dir;

    /** conv-26's first two sessions and the six {@link #QUESTIONS} (the third is adversarial), in that order. */
    static Path slice(Path target) throws Exception {
        Path file = EvalOnSharedDataTest.sharedData().resolve("locomo/locomo-dev.json");
        Assumptions.assumeTrue(Files.isRegularFile(file), "LoCoMo not found at " + file.toAbsolutePath()
                + " (../shared/data is only present on the project's machines); skipping");
        JsonNode first = JSON.readTree(file.toFile()).get(0);
        ObjectNode conversation = JSON.createObjectNode();
        for (String name : List.of("speaker_a", "speaker_b", "session_1_date_time", "session_1", "session_2_date_time",
                "session_2")) {
            conversation.set(name, first.path("conversation").get(name));
        }
        ArrayNode qa = JSON.createArrayNode();
        for (String question : QUESTIONS) {
            for (JsonNode q : first.path("qa")) {
                if (q.path("question").asString().equals(question)) {
                    qa.add(q);
                    break;
                }
            }
        }
        assertThat(qa).hasSize(QUESTIONS.size());
        ObjectNode sample = JSON.createObjectNode().put("sample_id", "conv-26");
        sample.set("conversation", conversation);
        sample.set("qa", qa);
        Path out = target.resolve("locomo-slice.json");
        Files.writeString(out, JSON.createArrayNode().add(sample).toString());
        return out;
    }

    @Test
    void eachQuestionIsAnsweredFromMemoryAndJudgedAndEveryFailureIsReported() throws Exception {
        Path file = slice(dir);
        // Four answers: the fifth question finds the answer model out of turns, a failure of the answer stage.
        ScriptedChatModel answers = ScriptedChatModel.fromJson("""
                {"turns": [
                  {"text": "7 May 2023", "expect_in_prompt": ["Question: When did Caroline go to the LGBTQ support group?",
                                                             "8 May 2023, 1:56 PM] Caroline: ", "do not know"]},
                  {"text": "2022", "expect_in_prompt": ["Question: When did Melanie paint a sunrise?"]},
                  {"text": "Psychology and counseling", "expect_in_prompt": ["pursue in her educaton?"]},
                  {"text": "Adoption agencies", "expect_in_prompt": ["Question: What did Caroline research?"]}
                ]}""");
        ScriptedChatModel judge = ScriptedChatModel.fromJson("""
                {"turns": [
                  {"text": "{\\"reasoning\\": \\"the same date\\", \\"label\\": \\"CORRECT\\"}",
                   "expect_in_prompt": ["Gold answer: 7 May 2023", "Generated answer: 7 May 2023", "CORRECT or WRONG"]},
                  {"text": "Both say 2022. {\\"label\\": \\"correct\\"}", "expect_in_prompt": ["Gold answer: 2022"]},
                  {"text": "I would say it is right."},
                  {"text": "```json\\n{\\"reasoning\\": \\"not the fields\\", \\"label\\": \\"WRONG\\"}\\n```",
                   "expect_in_prompt": ["Your reply could not be read: the reply holds no JSON object with a \\"label\\""]},
                  {"text": "CORRECT"},
                  {"text": "{\\"label\\": \\"MAYBE\\"}"}
                ]}""");
        try (OnnxEmbedder embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(2).build()) {
            LoCoMoAnswerEval.Report report = LoCoMoAnswerEval.run(file, EvalSetup.defaults(embedder), answers, judge,
                    LoCoMoAnswerEval.Options.defaults(), (d, t) -> { }, (d, t) -> { });

            assertThat(report.conversations()).isEqualTo(1);
            assertThat(report.turns()).isEqualTo(35);
            assertThat(report.skipped()).as("the adversarial question").isEqualTo(1);
            assertThat(report.beyondLimit()).isZero();
            assertThat(report.overall()).isEqualTo(new LoCoMoAnswerEval.Score(5, 2, 2));
            assertThat(report.overall().accuracy()).isEqualTo(0.4);
            assertThat(report.byCategory()).containsOnlyKeys(1, 2, 3);
            assertThat(report.byCategory().get(2)).isEqualTo(new LoCoMoAnswerEval.Score(2, 2, 0));
            assertThat(report.byCategory().get(3)).isEqualTo(new LoCoMoAnswerEval.Score(1, 0, 0));
            assertThat(report.byCategory().get(1)).isEqualTo(new LoCoMoAnswerEval.Score(2, 0, 2));
            assertThat(report.failures()).extracting(LoCoMoAnswerEval.Failure::question, LoCoMoAnswerEval.Failure::stage)
                    .containsExactly(tuple("What did Caroline research?", LoCoMoAnswerEval.Stage.JUDGE),
                            tuple("What is Caroline's identity?", LoCoMoAnswerEval.Stage.ANSWER));
            assertThat(report.failures().get(0).error()).isEqualTo("the judge's reply could not be read, also when asked "
                    + "again with the error: the label must be \"CORRECT\" or \"WRONG\", got \"\"MAYBE\"\"");
            assertThat(report.failures().get(1).error()).contains("4 turns and all were played");
            assertThat(report.retrieval().queries()).isEqualTo(5);
            assertThat(report.retrieval().k()).isEqualTo(10);
            assertThat(report.retrieval().meanTokens()).as("ten chat turns").isBetween(100.0, 1_500.0);
            assertThat(report.answerP95Millis()).isGreaterThanOrEqualTo(report.answerP50Millis()).isPositive();

            String table = EvalTables.loCoMoAnswers(report, LoCoMoAnswerEval.Options.defaults());
            assertThat(table).contains("5 questions asked, 1 skipped as adversarial or without a gold answer")
                    .contains("all                5        2       2    0.4000")
                    .contains("2 temporal         2        2       0    1.0000")
                    .contains("2 question(s) could not be scored (counted as not correct):")
                    .contains("  conv-26 judge: \"What did Caroline research?\": the judge's reply could not be read")
                    .contains("  conv-26 answer: \"What is Caroline's identity?\": ");
            assertThat(EvalTables.loCoMoAnswersHeadline(report)).isEqualTo("accuracy 0.4000");
        }
    }

    @Test
    void theOptionsAndTheConversationsAreChecked() throws Exception {
        Path file = slice(dir);
        assertThatThrownBy(() -> new LoCoMoAnswerEval.Options(0, SearchMode.HYBRID, Set.of(), 1))
                .hasMessage("k must be between 1 and 100, got 0");
        assertThatThrownBy(() -> new LoCoMoAnswerEval.Options(10, SearchMode.HYBRID, Set.of(), 0))
                .hasMessage("the most questions must be at least 1, got 0");
        ScriptedChatModel unused = ScriptedChatModel.fromJson("{\"turns\": []}");
        try (OnnxEmbedder embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(2).build()) {
            assertThatThrownBy(() -> LoCoMoAnswerEval.run(file, EvalSetup.defaults(embedder), unused, unused,
                    new LoCoMoAnswerEval.Options(10, SearchMode.BM25, Set.of("conv-99"), 5), (d, t) -> { }, (d, t) -> { }))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds no conversation [conv-99]; it "
                            + "holds [conv-26]");
            assertThat(unused.requests()).isEmpty();
        }
    }
}
