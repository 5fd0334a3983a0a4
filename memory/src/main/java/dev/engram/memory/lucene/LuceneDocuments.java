package dev.engram.memory.lucene;

import dev.engram.memory.ChangeEvent;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.spi.Columns;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.util.BytesRef;

/**
 * How memory becomes Lucene documents: the field names, the current state of a changed item read
 * through the (scoped) store, and the document written for it. One document per archival entry,
 * message, note and block; the text analysed for BM25, the embedding in an HNSW vector field.
 */
final class LuceneDocuments {
    static final String KEY = "key";
    static final String USER = "user";
    static final String AGENT = "agent";
    static final String DOMAIN = "domain";
    static final String ID = "id";
    static final String TIME = "time";
    static final String TAG = "tag";
    static final String ROLE = "role";
    static final String TEXT = "text";
    static final String CONTENT = "content";
    static final String VECTOR = "vector";
    /** One term per (user, agent, domain): the scope filter is one flat term set instead of nested clauses. */
    static final String SCOPE_DOMAIN = "scope_domain";

    private final MemoryStore store;
    private final int conversationContext;

    LuceneDocuments(MemoryStore store, int conversationContext) {
        this.store = store;
        this.conversationContext = conversationContext;
    }

    /**
     * The current state of one changed item, or empty if it no longer exists (or has no text).
     * {@code indexed} is what is analysed and embedded; {@code text} what a hit shows.
     */
    record Item(String key, SearchDomain domain, String id, String userId, String agentId, String text,
            String indexed, Instant time, List<String> tags, Optional<MessageRole> role) {
    }

    static String key(ChangeEvent e) {
        return e.entity().name() + '\u0000' + e.userId() + '\u0000' + e.agentId().orElse("") + '\u0000' + e.id();
    }

    Optional<Item> load(ChangeEvent e) {
        String key = key(e);
        SearchDomain domain = SearchDomain.of(e.entity());
        if (e.entity() == ChangeEvent.Entity.NOTE) {
            return store.notes().get(e.userId(), e.id()).filter(n -> !n.content().isBlank())
                    .map(n -> new Item(key, domain, n.id(), n.userId(), "", n.content(), n.content(), n.updatedAt(), List.of(),
                            Optional.empty()));
        }
        Scope scope = Scope.of(e.userId(), e.agentId().orElseThrow());
        return switch (e.entity()) {
            case ARCHIVAL -> store.archival().get(scope, e.id()).map(a -> new Item(key, domain, a.id(), e.userId(),
                    scope.agentId(), a.content(), a.content(), a.updatedAt(), a.tags(), Optional.empty()));
            case MESSAGE -> store.messages().get(scope, Long.parseLong(e.id())).filter(m -> !m.content().isBlank())
                    .map(m -> new Item(key, domain, Long.toString(m.id()), e.userId(), scope.agentId(), m.content(),
                            withContext(scope, m), m.createdAt(), List.of(), Optional.of(m.role())));
            case BLOCK -> store.blocks().get(scope, e.id()).filter(b -> !b.isShared(scope) && !b.value().isBlank())
                    .map(b -> new Item(key, domain, b.label(), e.userId(), scope.agentId(), b.value(), b.value(),
                            b.updatedAt(), List.of(), Optional.empty()));
            case NOTE -> throw new IllegalStateException("handled above");
        };
    }

    /** A message with up to {@link #conversationContext} earlier messages of its session before it. */
    private String withContext(Scope scope, ConversationMessage m) {
        if (conversationContext == 0) {
            return m.content();
        }
        List<ConversationMessage> earlier = store.messages().list(scope, MessageQuery.all().withSession(m.sessionId())
                .withIdRange(Long.MIN_VALUE, m.id()).newest(conversationContext * 2));
        List<String> parts = new ArrayList<>();
        for (int i = earlier.size() - 1; i >= 0 && parts.size() < conversationContext; i--) {
            if (!earlier.get(i).content().isBlank()) {
                parts.add(0, earlier.get(i).content());
            }
        }
        parts.add(m.content());
        return String.join("\n", parts);
    }

    static Document document(Item item, float[] vector) {
        Document d = new Document();
        d.add(new StringField(KEY, item.key(), Field.Store.NO));
        d.add(new StringField(USER, item.userId(), Field.Store.NO));
        d.add(new StringField(AGENT, item.agentId(), Field.Store.NO));
        d.add(new StringField(DOMAIN, item.domain().key(), Field.Store.NO));
        d.add(new org.apache.lucene.document.SortedDocValuesField(DOMAIN, new BytesRef(item.domain().key())));
        String scopeDomain = scopeDomain(item.userId(), item.agentId(), item.domain());
        d.add(new StringField(SCOPE_DOMAIN, scopeDomain, Field.Store.NO));
        d.add(new org.apache.lucene.document.SortedDocValuesField(SCOPE_DOMAIN, new BytesRef(scopeDomain)));
        d.add(new org.apache.lucene.document.BinaryDocValuesField(ID, new BytesRef(item.id())));
        long micros = Columns.micros(item.time());
        d.add(new LongPoint(TIME, micros));
        d.add(new org.apache.lucene.document.NumericDocValuesField(TIME, micros));
        for (String tag : item.tags()) {
            d.add(new StringField(TAG, tag, Field.Store.NO));
        }
        item.role().ifPresent(r -> d.add(new StringField(ROLE, r.name(), Field.Store.NO)));
        d.add(new TextField(TEXT, item.indexed(), Field.Store.NO));
        d.add(new org.apache.lucene.document.BinaryDocValuesField(CONTENT, new BytesRef(item.text())));
        d.add(new KnnFloatVectorField(VECTOR, vector, VectorSimilarityFunction.DOT_PRODUCT));
        return d;
    }

    /** The scope-and-domain term: notes belong to the user alone, everything else to the user's agent. */
    static String scopeDomain(String userId, String agentId, SearchDomain domain) {
        return userId + '\u0000' + (domain == SearchDomain.NOTES ? "" : agentId) + '\u0000' + domain.key();
    }


    /** The most characters of an item that are embedded; BM25 indexes the whole text. */
    static final int MAX_EMBEDDED_CHARS = 16_000;

    /**
     * What is embedded of an item: its first {@link #MAX_EMBEDDED_CHARS} characters, so that the
     * embedding work per item is bounded (a 10 MB note must not hold the indexer, and every search
     * waiting on it, for minutes) while keyword search still covers all of it.
     */
    static String embedded(Item item) {
        String text = item.indexed();
        if (text.length() <= MAX_EMBEDDED_CHARS) {
            return text;
        }
        int end = MAX_EMBEDDED_CHARS;
        if (Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(0, end);
    }
}
