package dev.engram.memory.lucene;

import java.io.IOException;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
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
     * Every document {@code query} matches, with its score: what a hybrid search over a small scope collects in its
     * one BM25 pass, instead of the top of it and then a second pass over the index ({@link #query}) for the candidates
     * only k-NN found. The second pass costs a scorer per segment and term again; scoring all of a small scope's matches
     * once costs less. Scores are in document order; {@link #top} ranks them as Lucene's top-score collector does.
     */
    static EveryMatch everyMatch(IndexSearcher searcher, Query query) throws IOException {
        List<EveryMatch> parts = searcher.search(query, new CollectorManager<EveryMatch, List<EveryMatch>>() {
            @Override
            public EveryMatch newCollector() {
                return new EveryMatch();
            }

            @Override
            public List<EveryMatch> reduce(Collection<EveryMatch> collectors) {
                return List.copyOf(collectors);
            }
        });
        EveryMatch all = parts.size() == 1 ? parts.getFirst() : new EveryMatch();
        if (parts.size() > 1) {
            parts.forEach(p -> {
                for (int i = 0; i < p.size; i++) {
                    all.add(p.docs[i], p.scores[i]);
                }
            });
        }
        all.finish();
        return all;
    }

    /**
     * The matches of one query and their scores ({@link #everyMatch}), or the vector scores of every document of a scope
     * that an exact k-NN search scored ({@link ExactVectorSearch#search}); {@link #finished} once all are in.
     */
    static final class EveryMatch implements Collector {
        private int[] docs = new int[64];
        private float[] scores = new float[64];
        private int size;
        private boolean finished;

        void add(int doc, float score) {
            if (size == docs.length) {
                docs = Arrays.copyOf(docs, size * 2);
                scores = Arrays.copyOf(scores, size * 2);
            }
            docs[size] = doc;
            scores[size++] = score;
        }

        @Override
        public LeafCollector getLeafCollector(LeafReaderContext context) {
            int base = context.docBase;
            return new LeafCollector() {
                private Scorable scorer;

                @Override
                public void setScorer(Scorable scorer) {
                    this.scorer = scorer;
                }

                @Override
                public void collect(int doc) throws IOException {
                    add(base + doc, scorer.score());
                }
            };
        }

        @Override
        public ScoreMode scoreMode() {
            return ScoreMode.COMPLETE;
        }

        /** The best {@code n}: highest score first, equal scores by ascending document. */
        TopDocs top(int n) {
            Integer[] order = new Integer[size];
            for (int i = 0; i < size; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> scores[a] != scores[b] ? Float.compare(scores[b], scores[a])
                    : Integer.compare(docs[a], docs[b]));
            ScoreDoc[] best = new ScoreDoc[Math.min(n, size)];
            for (int i = 0; i < best.length; i++) {
                best[i] = new ScoreDoc(docs[order[i]], scores[order[i]]);
            }
            return new TopDocs(new TotalHits(size, TotalHits.Relation.EQUAL_TO), best);
        }

        /** Marks every match as added. */
        void finish() {
            finished = true;
        }

        /** Whether every match was added. */
        boolean finished() {
            return finished;
        }

        /**
         * The scores of {@code wanted}; a document not among the matches scores 0 with {@code missingScoresZero} (BM25,
         * as in {@link #query}) and is left out otherwise (a document without a vector, as in {@link #vector}).
         */
        Map<Integer, Float> read(int[] wanted, boolean missingScoresZero) {
            Map<Integer, Float> byDoc = new HashMap<>(size * 2);
            for (int i = 0; i < size; i++) {
                byDoc.put(docs[i], scores[i]);
            }
            Map<Integer, Float> out = new HashMap<>();
            for (int doc : wanted) {
                Float score = byDoc.get(doc);
                if (score != null || missingScoresZero) {
                    out.put(doc, score == null ? 0f : score);
                }
            }
            return out;
        }
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
