package dev.engram.memory.onnx;

import dev.engram.memory.EmbeddingModel;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The real bundled models, run offline. */
class OnnxEmbedderTest {
    private static OnnxEmbedder minilm;
    private static OnnxEmbedder bge;

    @BeforeAll
    static void load() {
        minilm = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(2).build();
        bge = OnnxEmbedder.builder(EmbeddingModel.BGE_SMALL_EN_V15_Q).threads(2).build();
    }

    @AfterAll
    static void close() {
        minilm.close();
        bge.close();
    }

    static double cosine(float[] a, float[] b) {
        double dot = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
        }
        return dot;
    }

    @Test
    void vectorsAreNormalisedAndOfTheModelsDimension() {
        for (OnnxEmbedder e : List.of(minilm, bge)) {
            List<float[]> vs = e.embed(List.of("The cat sat on the mat.", "", "Quantum chromodynamics"));
            assertThat(vs).hasSize(3).allSatisfy(v -> {
                assertThat(v).hasSize(384);
                assertThat(cosine(v, v)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-4));
            });
            assertThat(e.dimensions()).isEqualTo(384);
        }
    }

    @Test
    void similarMeaningsAreCloserThanUnrelatedOnes() {
        for (OnnxEmbedder e : List.of(minilm, bge)) {
            List<float[]> v = e.embed(List.of("My dog loves playing fetch in the park.",
                    "The puppy enjoys chasing balls outdoors.",
                    "Interest rates were raised by the central bank."));
            assertThat(cosine(v.get(0), v.get(1))).as(e.toString()).isGreaterThan(cosine(v.get(0), v.get(2)) + 0.2);
        }
    }

    @Test
    void queriesFindTheirPassage() {
        List<String> passages = List.of("Ana moved to Lisbon in May and works as a nurse.",
                "The recipe needs two eggs, flour and a pinch of salt.",
                "Mitochondria are the powerhouse of the cell.");
        for (OnnxEmbedder e : List.of(minilm, bge)) {
            List<float[]> docs = e.embed(passages);
            float[] q = e.embedQuery("Where does Ana live?");
            assertThat(cosine(q, docs.get(0))).as(e.toString())
                    .isGreaterThan(cosine(q, docs.get(1))).isGreaterThan(cosine(q, docs.get(2)));
        }
    }

    @Test
    void aRepeatedQueryIsAnsweredFromTheCacheWithTheSameVectorInAnArrayOfItsOwn() {
        try (OnnxEmbedder uncached = OnnxEmbedder.builder(EmbeddingModel.BGE_SMALL_EN_V15_Q).threads(2).queryCache(0).build();
                OnnxEmbedder two = OnnxEmbedder.builder(EmbeddingModel.BGE_SMALL_EN_V15_Q).threads(2).queryCache(2)
                        .spinning(true).build()) {
            float[] first = two.embedQuery("Where does Ana live?");
            assertThat(two.cachedQueries()).isEqualTo(1);
            first[0] = 42f; // a caller changing its array changes nothing cached
            float[] second = two.embedQuery("Where does Ana live?");
            assertThat(second).isNotSameAs(first);
            float[] fresh = uncached.embedQuery("Where does Ana live?");
            // Bit-identical: the cache returns what the model gave, and the threads' waiting (spinning or not) does not
            // change the arithmetic.
            assertThat(second).containsExactly(fresh);
            assertThat(bge.embedQuery("Where does Ana live?")).containsExactly(fresh);
            two.embedQuery("What does Ana do?");
            two.embedQuery("Who is Ana?");
            assertThat(two.cachedQueries()).isEqualTo(2); // bounded: the least recently used query left
            assertThat(uncached.embedQuery("Where does Ana live?")).containsExactly(fresh);
            assertThat(uncached.cachedQueries()).isZero();
        }
        assertThatThrownBy(() -> OnnxEmbedder.builder(EmbeddingModel.BGE_SMALL_EN_V15_Q).queryCache(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("query cache entries must be between 0 and 100000, got -1");
    }

    /**
     * Quantised models compute activation scales over the whole (padded) batch, so a text's vector
     * moves slightly with its batch neighbours (measured here: cos 0.976 at worst for a 3-token text
     * padded next to a 12-token one). Single calls are exactly repeatable.
     */
    @Test
    void aBatchGivesNearlyTheSameVectorsAsSingleCalls() {
        List<String> texts = List.of("short", "a somewhat longer sentence about gardening and tomatoes", "third one");
        List<float[]> batch = minilm.embed(texts);
        for (int i = 0; i < texts.size(); i++) {
            float[] single = minilm.embed(List.of(texts.get(i))).get(0);
            assertThat(cosine(batch.get(i), single)).isGreaterThan(0.95);
            assertThat(minilm.embed(List.of(texts.get(i))).get(0)).isEqualTo(single);
        }
    }

    @Test
    void textsLongerThanTheWindowAreSplitAndPooled() {
        String sentence = "The committee reviewed the annual budget and approved new funding for libraries. ";
        String longText = sentence.repeat(60); // far beyond 256 tokens
        float[] whole = minilm.embed(List.of(longText)).get(0);
        float[] topic = minilm.embedQuery("library funding in the annual budget");
        float[] unrelated = minilm.embedQuery("how to bake sourdough bread");
        assertThat(cosine(whole, topic)).isGreaterThan(cosine(whole, unrelated) + 0.3);
        assertThat(minilm.embed(List.of(longText)).get(0)).isEqualTo(whole);
        float[] mixed = minilm.embed(List.of(sentence.repeat(30) + "Penguins live in Antarctica and eat krill. ".repeat(30))).get(0);
        float[] penguins = minilm.embed(List.of("Penguins live in Antarctica and eat krill.")).get(0);
        assertThat(cosine(mixed, penguins)).as("the tail of a long text counts too").isGreaterThan(0.4);
    }

    @Test
    void bgeEmbedsAQueryAsItEmbedsTheSameTextAloneOrInABatchOfEqualLength() {
        assertThat(EmbeddingModel.BGE_SMALL_EN_V15_Q.queryPrefix()).isEmpty();
        assertThat(EmbeddingModel.BGE_SMALL_EN_V15_Q.instruction()).startsWith("Represent this sentence");
        assertThat(EmbeddingModel.ALL_MINILM_L6_V2_Q.instruction()).isEmpty();
        float[] query = bge.embedQuery("Where does Ana live?");
        // Bit-identical: the same tokens through the same session; a batch of texts of the same length pads nothing,
        // so the quantised model's activation scales are those of the text alone.
        assertThat(bge.embed(List.of("Where does Ana live?")).get(0)).containsExactly(query);
        List<float[]> batch = bge.embed(List.of("Where does Ana live?", "Where does Ana live?"));
        assertThat(batch.get(0)).containsExactly(query);
        assertThat(batch.get(1)).containsExactly(query);
        try (OnnxEmbedder one = OnnxEmbedder.builder(EmbeddingModel.BGE_SMALL_EN_V15_Q).threads(1).queryCache(0).build()) {
            assertThat(one.embedQuery("Where does Ana live?")).as("one intra-op thread computes the same").containsExactly(query);
        }
    }

    @Test
    void theModelsQueryInstructionIsPutBeforeQueriesOnlyWhenAskedFor() {
        String instruction = EmbeddingModel.BGE_SMALL_EN_V15_Q.instruction();
        try (OnnxEmbedder instructed = OnnxEmbedder.builder(EmbeddingModel.BGE_SMALL_EN_V15_Q).threads(2)
                .queryPrefix(instruction).queryCache(0).build()) {
            float[] query = instructed.embedQuery("hello world");
            assertThat(query).containsExactly(instructed.embed(List.of(instruction + "hello world")).get(0));
            float[] doc = instructed.embed(List.of("hello world")).get(0);
            assertThat(cosine(query, doc)).isLessThan(0.999).isGreaterThan(0.5);
            assertThat(bge.embed(List.of("hello world")).get(0)).as("documents never get it").containsExactly(doc);
            assertThat(bge.embedQuery("hello world")).containsExactly(doc);
        }
        assertThat(cosine(minilm.embedQuery("hello world"), minilm.embed(List.of("hello world")).get(0))).isGreaterThan(0.999);
        assertThatThrownBy(() -> OnnxEmbedder.builder(EmbeddingModel.BGE_SMALL_EN_V15_Q).queryPrefix(null))
                .isInstanceOf(NullPointerException.class).hasMessage("prefix must not be null");
    }

    @Test
    void modelsAreFoundByName() {
        assertThat(EmbeddingModel.byName("minilm")).isEqualTo(EmbeddingModel.ALL_MINILM_L6_V2_Q);
        assertThat(EmbeddingModel.byName("BGE-SMALL")).isEqualTo(EmbeddingModel.BGE_SMALL_EN_V15_Q);
        assertThatThrownBy(() -> EmbeddingModel.byName("gpt")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown embedding model 'gpt'; choose one of minilm, bge-small");
    }

    @Test
    void runsOfflineWithATelemetryFreeRuntime() {
        assertThat(System.getProperty("ai.djl.offline")).isEqualTo("true");
        String version = ai.onnxruntime.OrtEnvironment.getEnvironment().getVersion();
        int minor = Integer.parseInt(version.split("\\.")[1]);
        assertThat(version).startsWith("1.");
        assertThat(minor).as("ONNX Runtime 1.29+ phones home on Linux").isLessThan(29);
        assertThat(minilm.id()).isEqualTo("onnx:minilm:384");
    }

    @Test
    void badSettingsAreRejected() {
        assertThatThrownBy(() -> OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("threads must be at least 1, got 0");
        assertThatThrownBy(() -> minilm.embed(java.util.Arrays.asList("a", null))).isInstanceOf(NullPointerException.class);
        assertThat(minilm.embed(List.of())).isEmpty();
    }
}
