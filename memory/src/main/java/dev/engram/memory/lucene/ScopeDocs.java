package dev.engram.memory.lucene;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.IndexReaderContext;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.ConstantScoreWeight;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.BytesRef;

/**
 * The documents of a search's scope-and-domain keys, looked up once per search and used by every part of it (the BM25
 * filter, the exact vector scan, the completion of fused scores, the scope's size).
 *
 * <p>The index is sorted by {@link LuceneDocuments#SCOPE_DOMAIN} ({@link #SORT}), so in each segment a key's documents
 * are one run of document ids: the first of its postings and as many as its document frequency. Each key costs one
 * term lookup per segment here, where a term filter in each of those parts looked it up again, and the filter then
 * iterates a range of ids instead of decoding postings. A segment not sorted that way (an index this code did not
 * write) is filtered by the keys' postings, as before.
 */
final class ScopeDocs extends Query {
    /** The index sort every segment this code writes has: a scope-and-domain key's documents side by side. */
    static final Sort SORT = new Sort(new SortField(LuceneDocuments.SCOPE_DOMAIN, SortField.Type.STRING));

    private final List<BytesRef> keys;
    private final IndexReaderContext top;
    /** Per segment (by its ord): the ranges as [from, to) pairs, ascending; null where the segment is not sorted. */
    private final int[][] ranges;
    private final long size;

    private ScopeDocs(List<BytesRef> keys, IndexReaderContext top, int[][] ranges, long size) {
        this.keys = keys;
        this.top = top;
        this.ranges = ranges;
        this.size = size;
    }

    /** Looks up {@code keys} (not empty) in every segment of {@code searcher}'s index. */
    static ScopeDocs of(IndexSearcher searcher, List<BytesRef> keys) throws IOException {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a scope needs at least one scope-and-domain key");
        }
        List<BytesRef> sorted = keys.stream().sorted().distinct().toList();
        IndexReaderContext top = searcher.getTopReaderContext();
        List<LeafReaderContext> leaves = top.leaves();
        int[][] ranges = new int[leaves.size()][];
        long size = 0;
        for (LeafReaderContext leaf : leaves) {
            Terms terms = leaf.reader().terms(LuceneDocuments.SCOPE_DOMAIN);
            boolean bySort = SORT.equals(leaf.reader().getMetaData().sort());
            int[] pairs = new int[2 * sorted.size()];
            int n = 0;
            if (terms != null) {
                TermsEnum te = terms.iterator();
                PostingsEnum postings = null;
                for (BytesRef key : sorted) {
                    if (!te.seekExact(key)) {
                        continue;
                    }
                    int docFreq = te.docFreq();
                    size += docFreq;
                    if (bySort) {
                        postings = te.postings(postings, PostingsEnum.NONE);
                        int first = postings.nextDoc();
                        pairs[n++] = first;
                        pairs[n++] = first + docFreq;
                    }
                }
            }
            ranges[leaf.ord] = bySort ? Arrays.copyOf(pairs, n) : null;
        }
        return new ScopeDocs(sorted, top, ranges, size);
    }

    /** How many documents the keys hold (deleted ones included until merged away), as the sum of their frequencies. */
    long size() {
        return size;
    }

    /** How many segments are read as runs of documents (the others through the keys' postings); for tests. */
    int rangedSegments() {
        return (int) Arrays.stream(ranges).filter(r -> r != null).count();
    }

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) throws IOException {
        // Where the ranges cannot serve (another reader, an unsorted segment) the keys' postings do.
        Query byTerms = keys.size() == 1 ? new TermQuery(new Term(LuceneDocuments.SCOPE_DOMAIN, keys.getFirst()))
                : new TermInSetQuery(LuceneDocuments.SCOPE_DOMAIN, keys);
        Weight postings = searcher.createWeight(searcher.rewrite(byTerms), ScoreMode.COMPLETE_NO_SCORES, 1f);
        return new ConstantScoreWeight(this, boost) {
            @Override
            public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
                int[] pairs = (context.parent == top || context == top) && context.ord < ranges.length
                        ? ranges[context.ord] : null;
                if (pairs == null) {
                    ScorerSupplier inner = postings.scorerSupplier(context);
                    if (inner == null) {
                        return null;
                    }
                    return new ScorerSupplier() {
                        @Override
                        public org.apache.lucene.search.Scorer get(long leadCost) throws IOException {
                            return new ConstantScoreScorer(score(), scoreMode, inner.get(leadCost).iterator());
                        }

                        @Override
                        public long cost() {
                            return inner.cost();
                        }
                    };
                }
                if (pairs.length == 0) {
                    return null;
                }
                return new DefaultScorerSupplier(new ConstantScoreScorer(score(), scoreMode, iterator(pairs)));
            }

            @Override
            public boolean isCacheable(LeafReaderContext ctx) {
                return false; // one search's lookups: nothing to share with another
            }
        };
    }

    /** The documents of ascending [from, to) pairs. */
    static DocIdSetIterator iterator(int[] pairs) {
        if (pairs.length == 2) {
            return DocIdSetIterator.range(pairs[0], pairs[1]);
        }
        long cost = 0;
        for (int i = 0; i < pairs.length; i += 2) {
            cost += pairs[i + 1] - pairs[i];
        }
        long total = cost;
        return new DocIdSetIterator() {
            private int doc = -1;
            private int range;

            @Override
            public int docID() {
                return doc;
            }

            @Override
            public int nextDoc() {
                return doc == NO_MORE_DOCS ? NO_MORE_DOCS : advance(doc + 1);
            }

            @Override
            public int advance(int target) {
                while (range < pairs.length && pairs[range + 1] <= target) {
                    range += 2;
                }
                if (range >= pairs.length) {
                    return doc = NO_MORE_DOCS;
                }
                return doc = Math.max(target, pairs[range]);
            }

            @Override
            public long cost() {
                return total;
            }
        };
    }

    @Override
    public void visit(QueryVisitor visitor) {
        if (visitor.acceptField(LuceneDocuments.SCOPE_DOMAIN)) {
            visitor.visitLeaf(this);
        }
    }

    @Override
    public String toString(String field) {
        List<String> shown = new ArrayList<>();
        keys.forEach(k -> shown.add(k.utf8ToString().replace('\u0000', '/')));
        return "scope" + shown;
    }

    @Override
    public boolean equals(Object other) {
        return this == other; // bound to one reader's lookups
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
