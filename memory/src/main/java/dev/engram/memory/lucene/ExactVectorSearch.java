package dev.engram.memory.lucene;

import java.io.IOException;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.DocAndFloatFeatureBuffer;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.VectorScorer;
import org.apache.lucene.search.Weight;

/**
 * Exact k-NN over the documents of a filter, and the choice between it and the HNSW graph.
 *
 * <p>The vectors are scored where they lie, in the index's memory-mapped file, by Lucene's bulk vector scorer (SIMD
 * over a batch of documents at a time): reading each vector into a {@code float[]} first and ranking with a boxed
 * priority queue, as this search once did, cost twice as much per document (8,000 documents: about 1 ms).
 */
final class ExactVectorSearch {
    /**
     * Documents an HNSW search of the default beam visits in a graph of up to 100,000 vectors, per unit of beam
     * (about 4,000 at a beam of 100; {@code bench}'s {@code ScopeSpeed} puts the exact scan and the graph side by side).
     */
    static final int GRAPH_VISITS_PER_BEAM = 40;

    private ExactVectorSearch() {
    }

    /**
     * Whether scoring every document of a scope costs less than walking the graph. Exact search scores the
     * {@code scope}'s documents; a filtered graph walk visits about {@code beam * GRAPH_VISITS_PER_BEAM} documents of
     * the scope, and as many outside it for each inside (a scope of a tenth of the index: ten times as many), so
     * exact wins while {@code scope * scope / index} stays below the graph's visits. A scope that is most of its
     * index and larger than those visits walks the graph, however small (8,000 passages of one agent alone: graph);
     * a scope of 20,000 in an index of a million is scored exactly. Never exact above {@code exactUpTo}.
     */
    static boolean cheaperThanGraph(long scope, long index, int beam, int exactUpTo) {
        if (scope > exactUpTo) {
            return false;
        }
        double visits = (double) beam * GRAPH_VISITS_PER_BEAM;
        return scope <= visits || (double) scope * scope / Math.max(index, scope) <= visits;
    }

    /**
     * The {@code depth} nearest documents to {@code query} among those matching {@code filter}, best first, ties by
     * ascending document id; scores are Lucene's dot-product scores, as the graph search gives them.
     */
    static TopDocs search(IndexSearcher searcher, String field, float[] query, Query filter, int depth) throws IOException {
        return search(searcher, field, query, filter, depth, null);
    }

    /** As above, adding every document scored to {@code every} (when not null), which is then finished. */
    static TopDocs search(IndexSearcher searcher, String field, float[] query, Query filter, int depth,
            CandidateScores.EveryMatch every) throws IOException {
        Weight weight = searcher.createWeight(searcher.rewrite(filter), ScoreMode.COMPLETE_NO_SCORES, 1f);
        TopHeap best = new TopHeap(depth);
        DocAndFloatFeatureBuffer batch = new DocAndFloatFeatureBuffer();
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            FloatVectorValues values = leaf.reader().getFloatVectorValues(field);
            Scorer matching = values == null ? null : weight.scorer(leaf);
            VectorScorer scorer = matching == null ? null : values.scorer(query);
            if (scorer == null) {
                continue;
            }
            VectorScorer.Bulk bulk = scorer.bulk(matching.iterator());
            for (;;) {
                bulk.nextDocsAndScores(DocIdSetIterator.NO_MORE_DOCS, leaf.reader().getLiveDocs(), batch);
                if (batch.size == 0) {
                    break;
                }
                for (int i = 0; i < batch.size; i++) {
                    best.offer(leaf.docBase + batch.docs[i], batch.features[i]);
                }
                if (every != null) {
                    for (int i = 0; i < batch.size; i++) {
                        every.add(leaf.docBase + batch.docs[i], batch.features[i]);
                    }
                }
            }
        }
        if (every != null) {
            every.finish();
        }
        return best.topDocs();
    }

    /** A bounded min-heap of (score, doc): the worst kept is the lowest score, and among equal scores the highest doc. */
    private static final class TopHeap {
        private final int[] docs;
        private final float[] scores;
        private int size;

        TopHeap(int capacity) {
            docs = new int[capacity];
            scores = new float[capacity];
        }

        void offer(int doc, float score) {
            if (size < docs.length) {
                docs[size] = doc;
                scores[size] = score;
                up(size++);
            } else if (size > 0 && worse(scores[0], docs[0], score, doc)) {
                docs[0] = doc;
                scores[0] = score;
                down(0);
            }
        }

        /** Whether (s1, d1) ranks below (s2, d2). */
        private static boolean worse(float s1, int d1, float s2, int d2) {
            return s1 < s2 || (s1 == s2 && d1 > d2);
        }

        private void up(int i) {
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (!worse(scores[i], docs[i], scores[parent], docs[parent])) {
                    return;
                }
                swap(i, parent);
                i = parent;
            }
        }

        private void down(int i) {
            for (;;) {
                int left = 2 * i + 1;
                if (left >= size) {
                    return;
                }
                int child = left + 1 < size && worse(scores[left + 1], docs[left + 1], scores[left], docs[left]) ? left + 1 : left;
                if (!worse(scores[child], docs[child], scores[i], docs[i])) {
                    return;
                }
                swap(i, child);
                i = child;
            }
        }

        private void swap(int a, int b) {
            int d = docs[a];
            docs[a] = docs[b];
            docs[b] = d;
            float s = scores[a];
            scores[a] = scores[b];
            scores[b] = s;
        }

        TopDocs topDocs() {
            ScoreDoc[] out = new ScoreDoc[size];
            for (int i = size - 1; i >= 0; i--) { // pop worst first, fill from the back
                out[i] = new ScoreDoc(docs[0], scores[0]);
                size--;
                docs[0] = docs[size];
                scores[0] = scores[size];
                down(0);
            }
            return new TopDocs(new TotalHits(out.length, TotalHits.Relation.EQUAL_TO), out);
        }
    }
}
