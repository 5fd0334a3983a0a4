package dev.engram.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScaleSearchTest {
    private static final List<String> TEXTS = IntStream.range(0, 37)
            .mapToObj(i -> "Passage number " + i + " about protein folding, memory and sleep in mice").toList();
    private static final List<String> QUERIES = List.of("protein folding in mice", "sleep and memory", "what about number seven");

    private static String run(ScaleSearch.Options options) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ScaleCorpus corpus = ScaleCorpus.random(TEXTS, QUERIES, 16, 7);
        new ScaleSearch(options, corpus, QUERIES, new PrintStream(bytes, true, StandardCharsets.UTF_8)).run();
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aTinyRunPrintsEveryFieldAtEveryMilestoneAndTheReopening(@TempDir Path work) throws Exception {
        String out = run(new ScaleSearch.Options(work, 2_000, 20, List.of(1_000), 1, Duration.ZERO, 0, 300, 0));

        String[] milestones = out.split("== ");
        assertThat(milestones).hasSize(4); // the header, 1,000, 2,000 and the reopening
        assertThat(milestones[1]).startsWith("milestone 1,000 passages");
        assertThat(milestones[2]).startsWith("milestone 2,000 passages");
        for (String m : List.of(milestones[1], milestones[2])) {
            assertThat(m).containsPattern("build: \\d+ s \\(store and index, measurements excluded\\), \\d+ passages/s overall, "
                    + "\\d+ passages/s since the last milestone")
                    .containsPattern("disk: index \\d+\\.\\d\\d GB in \\d+ segments, store \\d+\\.\\d\\d GB, free \\d+\\.\\d GB")
                    .containsPattern("heap after GC: \\d+ MB \\(max \\d+ MB\\)")
                    .containsPattern("engram bm25 +\\d+\\.\\d{3} +\\d+\\.\\d{3}")
                    .containsPattern("engram vector +\\d+\\.\\d{3} +\\d+\\.\\d{3}")
                    .containsPattern("engram hybrid +\\d+\\.\\d{3} +\\d+\\.\\d{3}")
                    .containsPattern("lucene bm25, 100 deep, scope filter +\\d+\\.\\d{3} +\\d+\\.\\d{3}")
                    .containsPattern("lucene knn 100 \\(hnsw, scope filter\\) +\\d+\\.\\d{3} +\\d+\\.\\d{3}")
                    .containsPattern("lucene exact scan of the scope, 100 +\\d+\\.\\d{3} +\\d+\\.\\d{3}")
                    .containsPattern("engram vector recall@10 vs exact +1\\.0000");
        }
        assertThat(milestones[3]).startsWith("reopened at 2,000 passages")
                .containsPattern("open: store \\d+ ms, index \\d+ ms; first hybrid query \\d+\\.\\d ms \\(10 hits\\); heap after GC \\d+ MB");
        assertThat(Files.isDirectory(work.resolve("index"))).isTrue();
    }

    @Test
    void underTheFreeDiskFloorItAddsNothingMoreAndStillReportsWhereItStopped(@TempDir Path work) throws Exception {
        String out = run(new ScaleSearch.Options(work, 2_000, 20, List.of(1_000), 1, Duration.ZERO, Long.MAX_VALUE, 300, 2));

        assertThat(out).contains("stopped adding passages at 0: free disk").contains("== milestone 0 passages")
                .doesNotContain("milestone 1,000").contains("== reopened at 0 passages");
    }

    @Test
    void milestonesBeyondTheRunAreDroppedAndTheEndIsAlwaysOne() {
        ScaleSearch.Options options = new ScaleSearch.Options(Path.of("w"), 5_000, 10, List.of(9_000, 2_000, 1_000, 2_000), 1,
                Duration.ZERO, 0, 100, 0);

        assertThat(options.milestones()).containsExactly(1_000, 2_000, 5_000);
        assertThatThrownBy(() -> new ScaleSearch.Options(Path.of("w"), 5_000, 10, List.of(0), 1, Duration.ZERO, 0, 100, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("milestones must be positive");
    }

    private static String measureOnly(ScaleSearch.Options options, int rounds) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ScaleCorpus corpus = ScaleCorpus.random(TEXTS, QUERIES, 16, 7);
        new ScaleSearch(options, corpus, QUERIES, new PrintStream(bytes, true, StandardCharsets.UTF_8)).measureExisting(rounds);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void measureOnlyMeasuresAFinishedRunAgainWithoutAddingAnything(@TempDir Path work) throws Exception {
        ScaleSearch.Options options = new ScaleSearch.Options(work, 1_000, 20, List.of(), 1, Duration.ZERO, 0, 300, 0);
        run(options);
        long storeBytes = Files.size(work.resolve("memory.db"));

        String out = measureOnly(options, 2);

        String[] parts = out.split("== ");
        assertThat(parts).hasSize(4); // two rounds and the reopening
        assertThat(parts[1]).startsWith("measured at 1,000 passages, round 1 of 2 (nothing added)")
                .doesNotContain("build:")
                .containsPattern("disk: index \\d+\\.\\d\\d GB in \\d+ segments")
                .containsPattern("engram hybrid +\\d+\\.\\d{3} +\\d+\\.\\d{3}")
                .containsPattern("lucene exact scan of the scope, 100 +\\d+\\.\\d{3} +\\d+\\.\\d{3}")
                .containsPattern("engram vector recall@10 vs exact +1\\.0000");
        assertThat(parts[2]).startsWith("measured at 1,000 passages, round 2 of 2");
        assertThat(parts[3]).startsWith("reopened at 1,000 passages").contains("(10 hits)");
        assertThat(Files.size(work.resolve("memory.db"))).isEqualTo(storeBytes);
    }

    @Test
    void measureOnlyRefusesAMissingOrDifferentRun(@TempDir Path work) throws Exception {
        ScaleSearch.Options built = new ScaleSearch.Options(work, 1_000, 20, List.of(), 1, Duration.ZERO, 0, 300, 0);
        assertThatThrownBy(() -> measureOnly(built, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs the store and the index of a finished run");
        assertThat(Files.exists(work.resolve("memory.db"))).isFalse();

        run(built);
        ScaleSearch.Options other = new ScaleSearch.Options(work, 2_000, 20, List.of(), 1, Duration.ZERO, 0, 300, 0);
        assertThatThrownBy(() -> measureOnly(other, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holds 50 passages in its first scope where 2000 over 20 scopes put 100");
    }

    @Test
    void aScopesPassagesAreDistinctTextsWithTheirOwnPerturbedVectors() {
        assertThat(ScaleCorpus.primeTo(TEXTS, 10)).hasSize(37);
        assertThat(ScaleCorpus.primeTo(TEXTS.subList(0, 36), 10)).hasSize(33);
        ScaleCorpus corpus = ScaleCorpus.random(TEXTS, QUERIES, 16, 7);

        assertThat(corpus.text(40)).isEqualTo(TEXTS.get(3) + " (p40)");
        assertThat(corpus.vector(40)).isEqualTo(corpus.vector(40)).isNotEqualTo(corpus.vector(3));
        assertThat(BenchData.dot(corpus.vector(40), corpus.vector(40))).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
        assertThat(BenchData.dot(corpus.vector(40), corpus.vector(3))).isGreaterThan(0.8);
    }
}
