package dev.engram.memory.lucene;

import static dev.engram.memory.lucene.LuceneDocuments.CREATED;
import static dev.engram.memory.lucene.LuceneDocuments.DOMAIN;
import static dev.engram.memory.lucene.LuceneDocuments.METADATA;

import dev.engram.memory.MemoryFilter;
import dev.engram.memory.Metadata;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.spi.Columns;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.ConstantScoreWeight;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * A {@link MemoryFilter} as a Lucene filter clause: a two-phase check that reads a candidate's metadata, creation time
 * and domain from doc values and evaluates the filter with the same code every other path uses
 * ({@link MemoryFilter#matches}), so a filter means the same on every backend. Lucene checks it last, only on the
 * documents that pass the cheaper clauses (scope, domains, time, text terms), inside both retrievers, so a filtered
 * search still returns k hits whenever k matching documents exist. Never cached: its cost follows the candidates, not
 * the index.
 */
final class MetadataFilterQuery extends Query {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() { };

    private final MemoryFilter filter;
    private final String userId;
    private final String agentId;

    /** {@code userId} and {@code agentId}: the scope searched, whose documents alone reach this clause. */
    MetadataFilterQuery(MemoryFilter filter, String userId, String agentId) {
        this.filter = filter;
        this.userId = userId;
        this.agentId = agentId;
    }

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
        return new ConstantScoreWeight(this, boost) {
            @Override
            public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
                LeafReader reader = context.reader();
                BinaryDocValues metadata = DocValues.getBinary(reader, METADATA);
                NumericDocValues created = DocValues.getNumeric(reader, CREATED);
                SortedDocValues domains = DocValues.getSorted(reader, DOMAIN);
                DocIdSetIterator approximation = DocIdSetIterator.all(reader.maxDoc());
                TwoPhaseIterator check = new TwoPhaseIterator(approximation) {
                    @Override
                    public boolean matches() throws IOException {
                        int doc = approximation.docID();
                        Map<String, Object> fields = metadata.advanceExact(doc)
                                ? new HashMap<>(MAPPER.readValue(metadata.binaryValue().utf8ToString(), MAP)) : new HashMap<>();
                        if (created.advanceExact(doc)) {
                            fields.put(MemoryFilter.CREATED_AT, Columns.instant(created.longValue()));
                        }
                        fields.put(MemoryFilter.USER_ID, userId);
                        boolean note = domains.advanceExact(doc)
                                && domains.lookupOrd(domains.ordValue()).utf8ToString().equals(SearchDomain.NOTES.key());
                        if (!note) {
                            fields.put(MemoryFilter.AGENT_ID, agentId);
                        }
                        fields.replaceAll((k, v) -> v == null ? Metadata.NULL : v);
                        return filter.matches(fields);
                    }

                    @Override
                    public float matchCost() {
                        return 10_000f; // a JSON read per document: after every other clause
                    }
                };
                return new DefaultScorerSupplier(new ConstantScoreScorer(score(), scoreMode, check));
            }

            @Override
            public boolean isCacheable(LeafReaderContext ctx) {
                return false;
            }
        };
    }

    @Override
    public String toString(String field) {
        return "metadata:" + filter;
    }

    @Override
    public void visit(QueryVisitor visitor) {
        visitor.visitLeaf(this);
    }

    @Override
    public boolean equals(Object other) {
        return sameClassAs(other) && filter.equals(((MetadataFilterQuery) other).filter)
                && userId.equals(((MetadataFilterQuery) other).userId) && agentId.equals(((MetadataFilterQuery) other).agentId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(classHash(), filter, userId, agentId);
    }
}
