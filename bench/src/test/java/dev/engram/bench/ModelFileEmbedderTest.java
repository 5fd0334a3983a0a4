package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelFileEmbedderTest {
    private static final EmbeddingModel MINILM = EmbeddingModel.ALL_MINILM_L6_V2_Q;
    private static final List<String> TEXTS = List.of("Maya studies octopus migration",
            "The lighthouse keeper logged every ship that passed in the storm of 1911.");

    private static Path bundledModelFile(EmbeddingModel model, Path dir) throws IOException {
        Path file = dir.resolve("copy-of-" + model.shortName() + ".onnx");
        try (InputStream in = OnnxEmbedder.class.getResourceAsStream(model.modelResource())) {
            Files.copy(in, file);
        }
        return file;
    }

    @Test
    void theBundledModelsFileGivesTheLibrarysEmbeddingsBitForBit(@TempDir Path dir) throws IOException {
        Path file = bundledModelFile(MINILM, dir);
        try (OnnxEmbedder library = OnnxEmbedder.builder(MINILM).queryCache(0).build();
                Embedder fromFile = ModelFileEmbedder.open(MINILM, file, 0, "")) {
            assertThat(fromFile).isNotInstanceOf(OnnxEmbedder.class); // the class defined a second time
            assertThat(fromFile.id()).isEqualTo(library.id());
            List<float[]> expected = library.embed(TEXTS);
            List<float[]> actual = fromFile.embed(TEXTS);
            for (int i = 0; i < TEXTS.size(); i++) {
                assertThat(actual.get(i)).containsExactly(expected.get(i));
            }
            assertThat(fromFile.embedQuery("octopus")).containsExactly(library.embedQuery("octopus"));
        }
    }

    @Test
    void theWeightsComeFromTheGivenFileNotTheClasspath(@TempDir Path dir) throws IOException {
        // MiniLM's weights under bge-small's tokenizer (the same vocabulary) and settings: not bge-small's vectors
        Path file = bundledModelFile(MINILM, dir);
        EmbeddingModel bge = EmbeddingModel.BGE_SMALL_EN_V15_Q;
        try (OnnxEmbedder library = OnnxEmbedder.builder(bge).queryCache(0).build();
                Embedder fromFile = ModelFileEmbedder.open(bge, file, 0, "")) {
            double cosine = BenchData.dot(library.embedQuery("octopus migration"), fromFile.embedQuery("octopus migration"));
            assertThat(cosine).isLessThan(0.9);
        }
    }

    @Test
    void aMissingFileIsRefusedNamingIt(@TempDir Path dir) {
        Path missing = dir.resolve("nothing.onnx");
        assertThatThrownBy(() -> ModelFileEmbedder.open(MINILM, missing, 0, ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(missing.toString());
    }

    @Test
    void aCombinationNamesBothSidesOfTwoPrecisions() {
        assertThat(ModelPrecisionQuality.side("fp32/int8", 0)).isEqualTo("fp32");
        assertThat(ModelPrecisionQuality.side("fp32/int8", 1)).isEqualTo("int8");
        for (String bad : List.of("fp32", "fp16/int8", "int8/int8/int8", "")) {
            assertThatThrownBy(() -> ModelPrecisionQuality.side(bad, 0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PASSAGES/QUERIES");
        }
    }
}
