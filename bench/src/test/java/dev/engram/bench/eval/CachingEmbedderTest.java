package dev.engram.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CachingEmbedderTest {
    private static OnnxEmbedder minilm(String queryPrefix) {
        return OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).queryPrefix(queryPrefix).queryCache(0).build();
    }

    @Test
    void aQueryKeptUnderOnePrefixIsNeverReplayedForAnEmbedderWithAnother(@TempDir Path dir) {
        float[] plain;
        float[] passage;
        try (CachingEmbedder cache = CachingEmbedder.over(minilm(""), dir)) {
            plain = cache.embedQuery("octopus migration");
            passage = cache.embed(List.of("Maya studies octopus migration")).getFirst();
        }

        try (OnnxEmbedder direct = minilm("query: ");
                CachingEmbedder cache = CachingEmbedder.over(minilm("query: "), dir)) {
            float[] prefixed = cache.embedQuery("octopus migration");

            assertThat(prefixed).containsExactly(direct.embedQuery("octopus migration"));
            assertThat(prefixed).isNotEqualTo(plain);
            // documents do not depend on the query prefix: the same file serves them
            assertThat(cache.embed(List.of("Maya studies octopus migration")).getFirst()).containsExactly(passage);
        }

        try (CachingEmbedder cache = CachingEmbedder.over(minilm(""), dir)) {
            assertThat(cache.embedQuery("octopus migration")).containsExactly(plain);
        }
    }
}
