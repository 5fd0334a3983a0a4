package dev.engram.memory.lucene;

import static dev.engram.memory.lucene.LuceneDocuments.CONTENT;
import static dev.engram.memory.lucene.LuceneDocuments.DOMAIN;
import static dev.engram.memory.lucene.LuceneDocuments.ID;
import static dev.engram.memory.lucene.LuceneDocuments.SCOPE_DOMAIN;
import static dev.engram.memory.lucene.LuceneDocuments.TIME;

import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchRequest;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.search.IndexSearcher;

/**
 * What a search reads of its candidates and hits from the index's doc values. Every method takes the documents in
 * ascending order, so that each segment's iterators only move forward. Doc values rather than stored fields: a stored
 * document sits in a compressed block of many that must be decompressed to read one, while a doc value is read in
 * place.
 */
final class HitFields {
    private HitFields() {
    }

    /** What a hit shows, read from the index. */
    record Payload(String id, SearchDomain domain, String text, long micros) {
    }

    /** The hits' id, domain, text and time. */
    static Map<Integer, Payload> payloads(IndexSearcher searcher, int[] docs) throws IOException {
        Map<Integer, Payload> out = new HashMap<>();
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int i = 0;
        while (i < docs.length) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docs[i], leaves));
            LeafReader reader = leaf.reader();
            BinaryDocValues ids = DocValues.getBinary(reader, ID);
            BinaryDocValues texts = DocValues.getBinary(reader, CONTENT);
            SortedDocValues domains = DocValues.getSorted(reader, DOMAIN);
            NumericDocValues times = DocValues.getNumeric(reader, TIME);
            int end = leaf.docBase + reader.maxDoc();
            for (; i < docs.length && docs[i] < end; i++) {
                int doc = docs[i] - leaf.docBase;
                if (!ids.advanceExact(doc) || !texts.advanceExact(doc) || !domains.advanceExact(doc) || !times.advanceExact(doc)) {
                    throw new IllegalStateException("search index document " + docs[i] + " lacks its hit fields");
                }
                out.put(docs[i], new Payload(ids.binaryValue().utf8ToString(), domain(domains), texts.binaryValue().utf8ToString(),
                        times.longValue()));
            }
        }
        return out;
    }

    /** The archive each document comes from, read from its scope term; absent for the request scope's own memory. */
    static Map<Integer, String> archives(IndexSearcher searcher, int[] docs, SearchRequest request) throws IOException {
        Map<String, String> byKey = new HashMap<>();
        for (String archive : request.archives()) {
            byKey.put(LuceneDocuments.scopeDomain(request.scope().userId(), archive, SearchDomain.ARCHIVAL), archive);
        }
        Map<Integer, String> out = new HashMap<>();
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int i = 0;
        while (i < docs.length) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docs[i], leaves));
            SortedDocValues values = DocValues.getSorted(leaf.reader(), SCOPE_DOMAIN);
            int end = leaf.docBase + leaf.reader().maxDoc();
            for (; i < docs.length && docs[i] < end; i++) {
                if (values.advanceExact(docs[i] - leaf.docBase)) {
                    String archive = byKey.get(values.lookupOrd(values.ordValue()).utf8ToString());
                    if (archive != null) {
                        out.put(docs[i], archive);
                    }
                }
            }
        }
        return out;
    }

    /** Each document's domain (documents without one are left out). */
    static Map<Integer, SearchDomain> domains(IndexSearcher searcher, int[] docs) throws IOException {
        Map<Integer, SearchDomain> out = new HashMap<>();
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int i = 0;
        while (i < docs.length) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docs[i], leaves));
            SortedDocValues values = DocValues.getSorted(leaf.reader(), DOMAIN);
            int end = leaf.docBase + leaf.reader().maxDoc();
            for (; i < docs.length && docs[i] < end; i++) {
                if (values.advanceExact(docs[i] - leaf.docBase)) {
                    out.put(docs[i], domain(values));
                }
            }
        }
        return out;
    }

    /** The domain at a sorted doc values iterator's current document. */
    private static SearchDomain domain(SortedDocValues values) throws IOException {
        return SearchDomain.valueOf(values.lookupOrd(values.ordValue()).utf8ToString().toUpperCase(Locale.ROOT));
    }
}
