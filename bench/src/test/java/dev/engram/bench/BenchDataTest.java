package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchDataTest {
    @Test
    void aPassagesNumberIsReadFromTheEndOfItsTextAndATextWithoutOneIsAnError() {
        assertThat(BenchData.passageId("Maya studies octopus migration (p42)")).isEqualTo(42);
        assertThat(BenchData.passageId("(p7) first, then (p1234)  ")).isEqualTo(1234);

        assertThatThrownBy(() -> BenchData.passageId("no number here")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no number here");
    }

    @Test
    void aPerturbedCopyIsAUnitVectorNearItsBaseAndTheSameOnEveryCall() {
        float[][] base = {{1f, 0f, 0f, 0f}, {0f, 0.6f, 0.8f, 0f}};

        float[] copy = BenchData.perturbed(base, 3); // a copy of base[1]

        assertThat(BenchData.dot(copy, copy)).isCloseTo(1.0, offset(1e-5));
        assertThat(BenchData.dot(copy, base[1])).isGreaterThan(0.95);
        assertThat(BenchData.perturbed(base, 3)).containsExactly(copy);
        assertThat(BenchData.perturbed(base, 5)).isNotEqualTo(copy);
    }

    @Test
    void bytesOnDiskCountsEveryFileBelowTheDirectory(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("a"), new byte[1_000]);
        Files.createDirectories(dir.resolve("sub"));
        Files.write(dir.resolve("sub").resolve("b"), new byte[234]);

        assertThat(BenchData.bytesOnDisk(dir)).isEqualTo(1_234);
        assertThat(BenchData.megabytes(dir)).isEqualTo("0.0 MB");
    }
}
