package dev.engram.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocAndFloatFeatureBuffer;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopKnnCollector;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.search.VectorScorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * Bare Lucene on an Engram index, the nearest limits of what its scoped search does: BM25 of the query's terms in a
 * scope (100 deep, as a hybrid search looks), a k-NN query of 100 through HNSW (filtered to the scope when there are
 * several), and an exact scan of the scope's vectors by Lucene's bulk scorer. Each scope is drawn at random from the
 * index's own scope terms.
 */
final class LuceneLimits {
    /** One query's work, by its index in the query list. */
    interface Work {
        void run(int query) throws IOException;
    }

    /** Times one kind of query under a name (warm-up, samples and the printed line are the caller's). */
    interface Timer {
        void time(String name, Work work) throws IOException;
    }

    private LuceneLimits() {
    }

    /** Times the three bare queries on the index in {@code index} (its last commit), with {@code scopes} scopes. */
    static void measure(Path index, List<String> queries, Function<String, float[]> queryVector, int scopes, Timer timer)
            throws IOException {
        Analyzer analyzer = new EnglishAnalyzer();
        try (FSDirectory directory = FSDirectory.open(index); DirectoryReader reader = DirectoryReader.open(directory)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            List<BytesRef> scopeTerms = new ArrayList<>();
            Terms terms = MultiTerms.getTerms(reader, "scope_domain");
            TermsEnum te = terms.iterator();
            for (BytesRef t = te.next(); t != null; t = te.next()) {
                scopeTerms.add(BytesRef.deepCopyOf(t));
            }
            Random pick = new Random(5);
            IntFunction<Query> scopeFilter = q -> new TermQuery(new Term("scope_domain", scopeTerms.get(pick.nextInt(scopeTerms.size()))));
            timer.time("lucene bm25, 100 deep, scope filter", q -> {
                BooleanQuery.Builder words = new BooleanQuery.Builder();
                try (TokenStream ts = analyzer.tokenStream("text", queries.get(q))) {
                    CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
                    ts.reset();
                    while (ts.incrementToken()) {
                        words.add(new TermQuery(new Term("text", term.toString())), BooleanClause.Occur.SHOULD);
                    }
                    ts.end();
                }
                Query query = new BooleanQuery.Builder().add(words.build(), BooleanClause.Occur.MUST)
                        .add(scopeFilter.apply(q), BooleanClause.Occur.FILTER).build();
                searcher.search(query, new TopScoreDocCollectorManager(100, null, 100));
            });
            timer.time("lucene knn 100 (hnsw" + (scopes == 1 ? ")" : ", scope filter)"), q -> searcher.search(
                    new KnnFloatVectorQuery("vector", queryVector.apply(queries.get(q)), 100, scopes == 1 ? null : scopeFilter.apply(q)),
                    100));
            timer.time("lucene exact scan of the scope, 100", q -> exact(searcher, queryVector.apply(queries.get(q)),
                    scopeFilter.apply(q)));
        }
    }

    private static void exact(IndexSearcher searcher, float[] query, Query filter) throws IOException {
        Weight weight = searcher.createWeight(searcher.rewrite(filter), ScoreMode.COMPLETE_NO_SCORES, 1f);
        TopKnnCollector top = new TopKnnCollector(100, Integer.MAX_VALUE);
        DocAndFloatFeatureBuffer batch = new DocAndFloatFeatureBuffer();
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            FloatVectorValues values = leaf.reader().getFloatVectorValues("vector");
            Scorer docs = values == null ? null : weight.scorer(leaf);
            if (docs == null) {
                continue;
            }
            VectorScorer.Bulk bulk = values.scorer(query).bulk(docs.iterator());
            for (bulk.nextDocsAndScores(DocIdSetIterator.NO_MORE_DOCS, leaf.reader().getLiveDocs(), batch); batch.size > 0;
                    bulk.nextDocsAndScores(DocIdSetIterator.NO_MORE_DOCS, leaf.reader().getLiveDocs(), batch)) {
                for (int i = 0; i < batch.size; i++) {
                    top.collect(leaf.docBase + batch.docs[i], batch.features[i]);
                }
            }
        }
        top.topDocs();
    }
}
