package dev.engram.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Embedder;
import dev.engram.memory.Fusion;
import dev.engram.memory.SearchMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CandidateDumpTest {
    /** "apple" texts along the query's axis, the rest across it: the vector list ranks the apple document first. */
    private record AxisEmbedder() implements Embedder {
        @Override
        public String id() {
            return "axis-2";
        }

        @Override
        public int dimensions() {
            return 2;
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            return texts.stream().map(t -> t.contains("apple") ? new float[] {1, 0} : new float[] {0, 1}).toList();
        }

        @Override
        public float[] embedQuery(String query) {
            return new float[] {1, 0};
        }
    }

    @Test
    void eachJudgedQueryIsWrittenWithItsGradesAndBothRetrieversListsWithTheirScores(@TempDir Path dir) throws IOException {
        Path beir = dir.resolve("beir");
        Files.createDirectories(beir.resolve("qrels"));
        Files.writeString(beir.resolve("corpus.jsonl"), """
                {"_id": "d1", "title": "Apples", "text": "an apple a day"}
                {"_id": "d2", "title": "Pears", "text": "a pear is sweet"}
                """);
        Files.writeString(beir.resolve("queries.jsonl"), """
                {"_id": "7", "text": "apple"}
                {"_id": "8", "text": "not judged"}
                """);
        Files.writeString(beir.resolve("qrels/train.tsv"), "query-id\tcorpus-id\tscore\n7\td1\t1\n");
        Path out = dir.resolve("dump.tsv");
        CandidateDump.sciFact(beir, beir.resolve("qrels/train.tsv"), new EvalSetup(new AxisEmbedder(),
                EnumSet.allOf(SearchMode.class), Fusion.defaults(), 10, 2, 1), out);

        List<String> lines = Files.readAllLines(out);
        assertThat(lines.getFirst()).isEqualTo("Q\t7\t7\t0\td1=1");
        // BM25 finds only the document that says "apple"; the vector search ranks both, the apple one first.
        assertThat(lines.stream().filter(l -> l.startsWith("B\t")).map(l -> l.split("\t")[2]).toList()).containsExactly("d1");
        assertThat(lines.stream().filter(l -> l.startsWith("V\t")).map(l -> l.split("\t")[1] + " " + l.split("\t")[2]).toList())
                .containsExactly("1 d1", "2 d2");
        assertThat(lines.stream().filter(l -> !l.startsWith("Q")).mapToDouble(l -> Double.parseDouble(l.split("\t")[3])).min()
                .orElseThrow()).isGreaterThan(0);
        assertThat(lines).hasSize(4); // the unjudged query is not written
    }
}
