package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VectorFileTest {
    @Test
    void whatIsWrittenIsReadBackBitForBit(@TempDir Path dir) throws IOException {
        float[][] passages = {{0.1f, -0.2f, Float.MIN_VALUE}, {1f, 0f, -0f}};
        Map<String, float[]> queries = Map.of("octopus migration", new float[] {0.5f, 0.25f, -1f},
                "ünïcödé query", new float[] {0f, 1f, 0f});
        Path file = dir.resolve("vectors.bin");

        new VectorFile(passages, queries).write(file);
        VectorFile read = VectorFile.read(file);

        assertThat(read.passages()).isDeepEqualTo(passages);
        assertThat(read.queries()).containsOnlyKeys(queries.keySet());
        queries.forEach((q, v) -> assertThat(read.queries().get(q)).containsExactly(v));
    }

    @Test
    void writingReplacesWhatTheFileHeld(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("vectors.bin");
        new VectorFile(new float[][] {{1f, 2f}, {3f, 4f}, {5f, 6f}}, Map.of("a", new float[] {1f, 0f})).write(file);

        new VectorFile(new float[][] {{7f, 8f}}, Map.of()).write(file);

        VectorFile read = VectorFile.read(file);
        assertThat(read.passages()).isDeepEqualTo(new float[][] {{7f, 8f}});
        assertThat(read.queries()).isEmpty();
    }

    @Test
    void aTruncatedFileIsAnErrorNotShorterVectors(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("vectors.bin");
        new VectorFile(new float[][] {{1f, 2f}, {3f, 4f}}, Map.of()).write(file);
        byte[] whole = Files.readAllBytes(file);
        Files.write(file, java.util.Arrays.copyOf(whole, whole.length - 6));

        assertThatThrownBy(() -> VectorFile.read(file)).isInstanceOf(java.io.EOFException.class);
    }
}
