package dev.engram.memory.lucene;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.VectorScorer;
import org.apache.lucene.search.Weight;

/**
 * Scores of chosen documents read from the index: what one retriever gives a candidate the other found, and the stored
 * vectors of the best hits. A hybrid search fuses two top lists; a document in only one of them has, in the other, a
 * score the list left out (below its cut), not none. Reading that score (a dot product with a vector already in the
 * index, or the BM25 score of one document) costs microseconds per document, far less than a deeper search.
 */
final class CandidateScores {
    private CandidateScores() {
    }

    /**
     * The dot-product scores (Lucene's, as a k-NN search gives them) of {@code docs} (ascending) against {@code query};
     * a document without a vector is left out.
     */
    static Map<Integer, Float> vector(IndexSearcher searcher, String field, float[] query, int[] docs) throws IOException {
        Map<Integer, Float> out = new HashMap<>();
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int i = 0;
        while (i < docs.length) { // docs ascending: one forward-only iterator per segment
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docs[i], leaves));
            int end = leaf.docBase + leaf.reader().maxDoc();
            FloatVectorValues values = leaf.reader().getFloatVectorValues(field);
            VectorScorer scorer = values == null ? null : values.scorer(query);
            DocIdSetIterator it = scorer == null ? null : scorer.iterator();
            for (; i < docs.length && docs[i] < end; i++) {
                int doc = docs[i] - leaf.docBase;
                if (it != null && (it.docID() == doc || (it.docID() < doc && it.advance(doc) == doc))) {
                    out.put(docs[i], scorer.score());
                }
            }
        }
        return out;
    }

    /** The scores {@code query} gives {@code docs} (ascending); a document it does not match scores 0. */
    static Map<Integer, Float> query(IndexSearcher searcher, Query query, int[] docs) throws IOException {
        Map<Integer, Float> out = new HashMap<>();
        Weight weight = searcher.createWeight(searcher.rewrite(query), ScoreMode.COMPLETE, 1f);
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int i = 0;
        while (i < docs.length) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docs[i], leaves));
            int end = leaf.docBase + leaf.reader().maxDoc();
            Scorer scorer = weight.scorer(leaf);
            DocIdSetIterator it = scorer == null ? null : scorer.iterator();
            for (; i < docs.length && docs[i] < end; i++) {
                int doc = docs[i] - leaf.docBase;
                boolean on = it != null && (it.docID() == doc || (it.docID() < doc && it.advance(doc) == doc));
                out.put(docs[i], on ? scorer.score() : 0f);
            }
        }
        return out;
    }

    /**
     * Pseudo-relevance feedback in the vector space: {@code query} moved toward the mean of the stored vectors of
     * {@code top} (the first pass's best documents, any order), by {@code weight} (0 keeps the query; 1 gives the mean
     * as much weight as the query), renormalised to unit length. No second embedding: the vectors are the index's.
     * The query itself when none of {@code top} has a vector.
     */
    static float[] feedback(IndexSearcher searcher, String field, float[] query, int[] top, double weight) throws IOException {
        float[] sum = new float[query.length];
        int n = 0;
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        for (int doc : top) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
            FloatVectorValues values = leaf.reader().getFloatVectorValues(field);
            if (values == null) {
                continue;
            }
            KnnVectorValues.DocIndexIterator it = values.iterator();
            if (it.advance(doc - leaf.docBase) == doc - leaf.docBase) {
                float[] v = values.vectorValue(it.index());
                for (int d = 0; d < sum.length; d++) {
                    sum[d] += v[d];
                }
                n++;
            }
        }
        if (n == 0) {
            return query;
        }
        float[] moved = new float[query.length];
        double norm = 0;
        for (int d = 0; d < moved.length; d++) {
            moved[d] = (float) (query[d] + weight * sum[d] / n);
            norm += moved[d] * moved[d];
        }
        norm = Math.sqrt(norm);
        for (int d = 0; d < moved.length; d++) {
            moved[d] = (float) (moved[d] / norm);
        }
        return moved;
    }
}
