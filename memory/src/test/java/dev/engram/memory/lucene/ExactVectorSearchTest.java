package dev.engram.memory.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.Test;

/** The exact k-NN path: the same top documents as brute force, and when it is chosen over the graph. */
class ExactVectorSearchTest {
    private static final int DIMS = 16;

    private static float[] unit(Random r) {
        float[] v = new float[DIMS];
        double n = 0;
        for (int i = 0; i < DIMS; i++) {
            v[i] = (float) r.nextGaussian();
            n += v[i] * v[i];
        }
        for (int i = 0; i < DIMS; i++) {
            v[i] /= (float) Math.sqrt(n);
        }
        return v;
    }

    @Test
    void scoresTheFilteredLiveDocumentsExactlyAsBruteForceDoes() throws IOException {
        Random r = new Random(7);
        List<float[]> vectors = new ArrayList<>();
        try (Directory dir = new ByteBuffersDirectory();
                IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig().setMaxBufferedDocs(150)
                        .setMergePolicy(NoMergePolicy.INSTANCE))) {
            for (int i = 0; i < 1_000; i++) { // several segments, some documents without a vector, some deleted
                float[] v = unit(r);
                vectors.add(v);
                Document d = new Document();
                d.add(new StringField("id", Integer.toString(i), Field.Store.NO));
                d.add(new StringField("scope", i % 3 == 0 ? "other" : "mine", Field.Store.NO));
                if (i % 17 != 0) {
                    d.add(new KnnFloatVectorField(LuceneDocuments.VECTOR, v, VectorSimilarityFunction.DOT_PRODUCT));
                }
                writer.addDocument(d);
            }
            for (int i = 1; i < 1_000; i += 50) {
                writer.deleteDocuments(new Term("id", Integer.toString(i)));
            }
            writer.commit();
            try (DirectoryReader reader = DirectoryReader.open(dir)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                for (int q = 0; q < 5; q++) {
                    float[] query = unit(r);
                    TopDocs top = ExactVectorSearch.search(searcher, LuceneDocuments.VECTOR, query,
                            new TermQuery(new Term("scope", "mine")), 25);
                    // Brute force over the same documents (doc ids equal insertion order: one writer, no merges).
                    List<ScoreDoc> expected = new ArrayList<>();
                    for (int i = 0; i < vectors.size(); i++) {
                        if (i % 3 != 0 && i % 17 != 0 && i % 50 != 1) {
                            expected.add(new ScoreDoc(i, VectorSimilarityFunction.DOT_PRODUCT.compare(query, vectors.get(i))));
                        }
                    }
                    expected.sort(Comparator.comparingDouble((ScoreDoc s) -> -s.score).thenComparingInt(s -> s.doc));
                    assertThat(top.scoreDocs).hasSize(25);
                    for (int i = 0; i < 25; i++) {
                        assertThat(top.scoreDocs[i].doc).isEqualTo(expected.get(i).doc);
                        assertThat(top.scoreDocs[i].score).isCloseTo(expected.get(i).score, org.assertj.core.api.Assertions.within(1e-5f));
                    }
                }
                assertThat(ExactVectorSearch.search(searcher, LuceneDocuments.VECTOR, unit(r),
                        new TermQuery(new Term("scope", "nobody")), 10).scoreDocs).isEmpty();
            }
        }
    }

    @Test
    void aScopeThatIsMostOfItsIndexWalksTheGraphOnceItOutgrowsTheGraphsVisits() {
        // One agent's 8,000 passages alone in their index: the graph (until now scored exactly, about 1 ms).
        assertThat(ExactVectorSearch.cheaperThanGraph(8_000, 8_000, 100, 20_000)).isFalse();
        assertThat(ExactVectorSearch.cheaperThanGraph(30_000, 30_000, 100, 20_000)).isFalse();
        // Small scopes, and scopes that are a small part of a large index, are scored exactly.
        assertThat(ExactVectorSearch.cheaperThanGraph(1_000, 1_000, 100, 20_000)).isTrue();
        assertThat(ExactVectorSearch.cheaperThanGraph(1_000, 1_000_000, 100, 20_000)).isTrue();
        assertThat(ExactVectorSearch.cheaperThanGraph(20_000, 1_000_000, 100, 20_000)).isTrue();
        // Never above the configured limit; 0 always walks the graph.
        assertThat(ExactVectorSearch.cheaperThanGraph(20_001, 1_000_000, 100, 20_000)).isFalse();
        assertThat(ExactVectorSearch.cheaperThanGraph(1, 1_000, 100, 0)).isFalse();
        // A wider beam visits more of the graph, so exact search pays off for larger scopes.
        assertThat(ExactVectorSearch.cheaperThanGraph(8_000, 8_000, 200, 20_000)).isTrue();
    }
}
