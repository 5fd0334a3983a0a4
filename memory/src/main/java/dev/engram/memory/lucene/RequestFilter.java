package dev.engram.memory.lucene;

import static dev.engram.memory.lucene.LuceneDocuments.CREATED;
import static dev.engram.memory.lucene.LuceneDocuments.DOMAIN;
import static dev.engram.memory.lucene.LuceneDocuments.ROLE;
import static dev.engram.memory.lucene.LuceneDocuments.SUPERSEDED;
import static dev.engram.memory.lucene.LuceneDocuments.TAG;
import static dev.engram.memory.lucene.LuceneDocuments.TIME;
import static dev.engram.memory.lucene.LuceneDocuments.VALID_TO;

import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.spi.Columns;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;

/** What a {@link SearchRequest} restricts a search to: its scope-and-domain keys, and the filter both retrievers use. */
final class RequestFilter {
    private RequestFilter() {
    }

    /** Whether the request covers archives beside its scope's own memory. */
    static boolean coversArchives(SearchRequest r) {
        return !r.archives().isEmpty() && r.domains().contains(SearchDomain.ARCHIVAL);
    }

    /** The scope-and-domain terms a request covers: its scope's domains, and the archival memory of the archives it names. */
    static List<BytesRef> scopeKeys(SearchRequest r) {
        List<BytesRef> keys = new ArrayList<>();
        for (String key : LuceneDocuments.scopeDomains(r)) {
            keys.add(new BytesRef(key));
        }
        if (coversArchives(r)) {
            r.archives().stream().sorted().forEach(a -> keys.add(new BytesRef(LuceneDocuments.scopeDomain(r.scope().userId(), a,
                    SearchDomain.ARCHIVAL))));
        }
        return keys;
    }

    /** Scope ({@code scope}: its documents), domains and the optional filters, as one filter query used inside both retrievers. */
    static Query of(SearchRequest r, Query scope) {
        BooleanQuery.Builder f = new BooleanQuery.Builder();
        f.add(scope, BooleanClause.Occur.FILTER);
        if (r.from().isPresent() || r.until().isPresent()) {
            long lo = r.from().map(Columns::micros).orElse(Long.MIN_VALUE);
            long hi = r.until().map(u -> Columns.micros(u) - 1).orElse(Long.MAX_VALUE);
            f.add(LongPoint.newRangeQuery(TIME, lo, hi), BooleanClause.Occur.FILTER);
        }
        if (!r.tags().isEmpty()) {
            f.add(new TermInSetQuery(TAG, r.tags().stream().map(BytesRef::new).toList()), BooleanClause.Occur.FILTER);
        }
        if (r.asOf().isPresent()) {
            long at = Columns.micros(r.asOf().get());
            f.add(LongPoint.newRangeQuery(CREATED, Long.MIN_VALUE, at), BooleanClause.Occur.FILTER);
            f.add(LongPoint.newRangeQuery(VALID_TO, at + 1, Long.MAX_VALUE), BooleanClause.Occur.FILTER);
        } else {
            f.add(new TermQuery(new Term(SUPERSEDED, "1")), BooleanClause.Occur.MUST_NOT);
        }
        if (!r.filter().isEmpty()) {
            f.add(new MetadataFilterQuery(r.filter(), r.scope().userId(), r.scope().agentId()), BooleanClause.Occur.FILTER);
        }
        if (!r.roles().isEmpty()) {
            Query roleIn = new TermInSetQuery(ROLE, r.roles().stream().map(x -> new BytesRef(x.name())).toList());
            Query notConversation = new BooleanQuery.Builder().add(new MatchAllDocsQuery(), BooleanClause.Occur.FILTER)
                    .add(new TermQuery(new Term(DOMAIN, SearchDomain.CONVERSATIONS.key())), BooleanClause.Occur.MUST_NOT)
                    .build();
            f.add(new BooleanQuery.Builder().add(roleIn, BooleanClause.Occur.SHOULD)
                    .add(notConversation, BooleanClause.Occur.SHOULD).build(), BooleanClause.Occur.FILTER);
        }
        return f.build();
    }
}
