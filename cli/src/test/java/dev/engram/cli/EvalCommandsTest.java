package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ArrayNode;

/**
 * {@code engram eval} on slices of the shared datasets (copied to a temporary directory for the
 * test only); skipped, with a message, when {@code ../shared/data} is absent.
 */
class EvalCommandsTest {
    private static final Path DATA = Path.of(System.getProperty("engram.shared.data", "../shared/data"));

    @TempDir
    Path home;

    @TempDir
    Path work;

    @Test
    void sciFactPrintsItsTableAndTheHeadlineLast() throws IOException {
        Path scifact = DATA.resolve("scifact");
        assumeTrue(Files.isRegularFile(scifact.resolve("corpus.jsonl")), "skipped: no SciFact data at " + scifact
                + " (the shared data sits beside the project in CI)");
        // A slice: the first 400 documents and the training queries judged against them.
        Path dir = Files.createDirectories(work.resolve("scifact"));
        Set<String> ids = new HashSet<>();
        List<String> corpus = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(scifact.resolve("corpus.jsonl"))) {
            for (String line; (line = r.readLine()) != null && corpus.size() < 400; ) {
                corpus.add(line);
                ids.add(Json.parse(line).path("_id").asString());
            }
        }
        Files.write(dir.resolve("corpus.jsonl"), corpus);
        Files.copy(scifact.resolve("queries.jsonl"), dir.resolve("queries.jsonl"));
        List<String> qrels = new ArrayList<>(List.of("query-id\tcorpus-id\tscore"));
        Files.readAllLines(scifact.resolve("qrels/train.tsv")).stream().skip(1)
                .filter(l -> ids.contains(l.split("\t")[1])).forEach(qrels::add);
        Path qrelsFile = Files.write(dir.resolve("train.tsv"), qrels);

        Cli.Run run = Cli.run(home, "eval", "scifact", dir.toString(), "--qrels", qrelsFile.toString(), "--mode", "bm25",
                "--mode", "hybrid");

        assertThat(run.exit()).as(run.err()).isZero();
        List<String> lines = run.out().lines().toList();
        assertThat(run.out()).contains("bm25").contains("hybrid");
        assertThat(lines.getLast()).matches("nDCG@10 0\\.\\d{4}");
        assertThat(Double.parseDouble(lines.getLast().substring(8))).isGreaterThan(0.3);
    }

    @Test
    void loCoMoPrintsItsTableAndTheHeadlineLast() throws IOException {
        Path locomo = DATA.resolve("locomo/locomo-dev.json");
        assumeTrue(Files.isRegularFile(locomo), "skipped: no LoCoMo data at " + locomo
                + " (the shared data sits beside the project in CI)");
        ArrayNode all = (ArrayNode) Json.MAPPER.readTree(locomo.toFile());
        ArrayNode one = Json.MAPPER.createArrayNode().add(all.get(0));
        Path file = work.resolve("locomo-one.json");
        Files.writeString(file, one.toString());

        Cli.Run run = Cli.run(home, "eval", "locomo", file.toString(), "--mode", "hybrid");

        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out().lines().toList().getFirst()).as("the header names the library's defaults")
                .isEqualTo("model bge-small, fusion weighted:0.4,0.6;conversations:0.6,0.4, candidates 100, conversation context 2 before and 1 after");
        assertThat(run.out().lines().toList().getLast()).matches("recall@10 0\\.\\d{4}");

        Cli.Run chosen = Cli.run(home, "eval", "locomo", file.toString(), "--mode", "bm25", "--model", "minilm",
                "--fusion", "rrf", "--context", "0,0", "--candidates", "50");
        assertThat(chosen.exit()).as(chosen.err()).isZero();
        assertThat(chosen.out().lines().toList().getFirst())
                .isEqualTo("model minilm, fusion rrf:60, candidates 50, conversation context 0 before and 0 after");
    }

    @Test
    void missingDataIsAUsageError() {
        Cli.Run run = Cli.run(home, "eval", "scifact", work.resolve("nothing").toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).startsWith("engram: Not a SciFact directory");
        Cli.Run model = Cli.run(home, "eval", "locomo", work.toString(), "--model", "gpt");
        assertThat(model.exit()).isEqualTo(2);
        Path file = work.resolve("empty.json");
        try {
            Files.writeString(file, "[]");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        for (String[] bad : new String[][] {{"--fusion", "max"}, {"--context", "2"}, {"--context", "2,11"}, {"--candidates", "5"}}) {
            Cli.Run r = Cli.run(home, "eval", "locomo", file.toString(), bad[0], bad[1]);
            assertThat(r.exit()).as(String.join(" ", bad)).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", bad)).startsWith("engram: ").contains(bad[0]).doesNotContain("Exception");
        }
    }
}
