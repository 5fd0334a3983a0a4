package dev.engram.memory.lucene;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.IndexSearcher;

/**
 * RM3 query expansion for BM25 (pseudo-relevance feedback, as Anserini does it): the terms of the first pass's best
 * hits, each weighted by how much of each hit it makes up times the hit's share of the hits' scores, and the query's
 * own terms at 1/|q| each, are mixed ({@code 1 - weight} the query's, {@code weight} the hits'), and the best
 * {@code terms} of them become a second BM25 query. No model is involved: the hits' text is read from the index's doc
 * values and analysed as the index analyses it.
 */
final class LexicalFeedback {
    private LexicalFeedback() {
    }

    /** A term of the expanded query and its weight (the boost of its clause). */
    record Weighted(String term, double weight) {
    }

    /**
     * The expanded query's terms, best first: the query's own terms ({@code queryTerms}, repeats counted) and the best
     * {@code terms} terms of the texts of {@code top} (the first pass's best documents, with their BM25 scores).
     *
     * @param field   the field whose analysis the terms follow
     * @param content the doc-values field holding each document's text
     */
    static List<Weighted> expand(IndexSearcher searcher, Analyzer analyzer, String field, String content,
            List<String> queryTerms, int[] top, float[] scores, int terms, double weight) throws IOException {
        double total = 0;
        for (float s : scores) {
            total += s;
        }
        Map<String, Double> feedback = new HashMap<>();
        String[] texts = texts(searcher, content, top);
        for (int i = 0; i < top.length; i++) {
            if (texts[i] == null || total <= 0) {
                continue;
            }
            List<String> tokens = analyse(analyzer, field, texts[i]);
            double share = scores[i] / total / Math.max(1, tokens.size());
            for (String t : tokens) {
                feedback.merge(t, share, Double::sum);
            }
        }
        List<Map.Entry<String, Double>> best = new ArrayList<>(feedback.entrySet());
        best.sort(Map.Entry.<String, Double>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()));
        best = best.subList(0, Math.min(terms, best.size()));
        double sum = best.stream().mapToDouble(Map.Entry::getValue).sum();
        Map<String, Double> mixed = new LinkedHashMap<>();
        for (String t : queryTerms) {
            mixed.merge(t, (1 - weight) / queryTerms.size(), Double::sum);
        }
        for (Map.Entry<String, Double> e : best) {
            mixed.merge(e.getKey(), sum <= 0 ? 0 : weight * e.getValue() / sum, Double::sum);
        }
        return mixed.entrySet().stream().filter(e -> e.getValue() > 0).map(e -> new Weighted(e.getKey(), e.getValue()))
                .sorted((a, b) -> Double.compare(b.weight(), a.weight())).toList();
    }

    /** The analysed terms of {@code text}, repeats kept. */
    static List<String> analyse(Analyzer analyzer, String field, String text) throws IOException {
        List<String> out = new ArrayList<>();
        try (TokenStream ts = analyzer.tokenStream(field, text)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                out.add(term.toString());
            }
            ts.end();
        }
        return out;
    }

    /** The text of each of {@code docs} (any order), null where a document has none. */
    private static String[] texts(IndexSearcher searcher, String content, int[] docs) throws IOException {
        Integer[] order = new Integer[docs.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Integer.compare(docs[a], docs[b]));
        String[] out = new String[docs.length];
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int i = 0;
        while (i < order.length) { // ascending: one forward-only iterator per segment
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docs[order[i]], leaves));
            BinaryDocValues values = DocValues.getBinary(leaf.reader(), content);
            int end = leaf.docBase + leaf.reader().maxDoc();
            for (; i < order.length && docs[order[i]] < end; i++) {
                if (values.advanceExact(docs[order[i]] - leaf.docBase)) {
                    out[order[i]] = values.binaryValue().utf8ToString();
                }
            }
        }
        return out;
    }
}
