package dev.engram.memory.lucene;

import dev.engram.memory.ChangeEvent;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Metadata;
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
    /** The names a conversation message's own text mentions ({@link Mentions}), analysed as {@link #TEXT} is: the entity signal. */
    static final String NAMES = "names";
    /** A document's title ({@link #title}), analysed as {@link #TEXT} is: a boosted BM25 clause searches it. */
    static final String TITLE = "title";
    static final String CONTENT = "content";
    static final String VECTOR = "vector";
    /** When the item was written (micros): {@code created_at} of filters, and the start of a fact's validity. */
    static final String CREATED = "created";
    /** When a superseded fact stopped holding (micros); {@link Long#MAX_VALUE} while it is current. */
    static final String VALID_TO = "valid_to";
    /** Present, as {@code "1"}, only on superseded facts: a search for current facts excludes this one term. */
    static final String SUPERSEDED = "superseded";
    /** The metadata JSON of notes and archival entries, read by metadata filters. */
    static final String METADATA = "metadata";
    /** One term per (user, agent, domain): the scope filter is one flat term set instead of nested clauses. */
    static final String SCOPE_DOMAIN = "scope_domain";

    /** How a message's date starts its BM25 text: "8 May 2023" (UTC). */
    private static final java.time.format.DateTimeFormatter DATE = java.time.format.DateTimeFormatter
            .ofPattern("d MMMM yyyy", java.util.Locale.ENGLISH).withZone(java.time.ZoneOffset.UTC);

    private final MemoryStore store;
    private final int before;
    private final int after;
    private final int embeddedBefore;

    /**
     * {@code before} and {@code after}: the neighbouring messages of its session BM25 sees with each message;
     * {@code embeddedBefore}: the earlier messages of its session embedded with each message.
     */
    LuceneDocuments(MemoryStore store, int before, int after, int embeddedBefore) {
        this.store = store;
        this.before = before;
        this.after = after;
        this.embeddedBefore = embeddedBefore;
    }

    /** What decides the documents' text, recorded with the index so that an index written otherwise is rebuilt. */
    String layout() {
        return "messages " + before + "+" + after + ", dated, metadata and validity, message names, document titles"
                + (embeddedBefore == 0 ? "" : ", messages embedded with " + embeddedBefore + " before");
    }

    /**
     * The messages whose documents hold {@code m} as a later neighbour (up to {@code after} earlier messages of its
     * session), as change events to apply again, so that their text takes {@code m} in.
     */
    List<ChangeEvent> neighboursBefore(ChangeEvent e) {
        if (after == 0 || e.entity() != ChangeEvent.Entity.MESSAGE || e.op() != ChangeEvent.Op.UPSERT) {
            return List.of();
        }
        Scope scope = Scope.of(e.userId(), e.agentId().orElseThrow());
        long id = Long.parseLong(e.id());
        return store.messages().get(scope, id).map(m -> store.messages().list(scope, MessageQuery.all()
                        .withSession(m.sessionId()).withIdRange(Long.MIN_VALUE, id).newest(after)).stream()
                .map(earlier -> new ChangeEvent(e.seq(), e.entity(), Long.toString(earlier.id()), e.op(), e.userId(), e.agentId()))
                .toList()).orElse(List.of());
    }

    /**
     * The current state of one changed item, or empty if it no longer exists (or has no text).
     * {@code lexical} is what BM25 indexes, {@code semantic} what is embedded, {@code text} what a hit
     * shows. They differ for a conversation message: BM25 sees it with its neighbouring turns (a reply
     * alone, "yes, last Tuesday", has none of the words of the question it answers), while its vector is
     * of the message alone (the neighbours' topics would blur what it says).
     */
    record Item(String key, SearchDomain domain, String id, String userId, String agentId, String text,
            String lexical, String semantic, Instant time, List<String> tags, Optional<MessageRole> role, Instant created,
            Metadata metadata, Optional<Instant> validTo) {
        /** An item without metadata that holds from when it was written, as messages and blocks do. */
        Item(String key, SearchDomain domain, String id, String userId, String agentId, String text, String lexical,
                String semantic, Instant time, List<String> tags, Optional<MessageRole> role, Instant created) {
            this(key, domain, id, userId, agentId, text, lexical, semantic, time, tags, role, created, Metadata.empty(),
                    Optional.empty());
        }
    }

    static String key(ChangeEvent e) {
        return e.entity().name() + '\u0000' + e.userId() + '\u0000' + e.agentId().orElse("") + '\u0000' + e.id();
    }

    Optional<Item> load(ChangeEvent e) {
        String key = key(e);
        SearchDomain domain = SearchDomain.of(e.entity());
        if (e.entity() == ChangeEvent.Entity.PASSAGE) {
            return store.folders().passage(e.userId(), e.id()).map(p -> new Item(key, domain, p.id(), p.userId(), p.folderId(),
                    p.text(), p.text(), p.text(), p.createdAt(), List.of(), Optional.empty(), p.createdAt()));
        }
        if (e.entity() == ChangeEvent.Entity.NOTE) {
            return store.notes().get(e.userId(), e.id()).filter(n -> !n.content().isBlank())
                    .map(n -> new Item(key, domain, n.id(), n.userId(), "", n.content(), n.content(), n.content(), n.updatedAt(), List.of(),
                            Optional.empty(), n.createdAt(), n.metadata(), n.validTo()));
        }
        Scope scope = Scope.of(e.userId(), e.agentId().orElseThrow());
        return switch (e.entity()) {
            case ARCHIVAL -> store.archival().get(scope, e.id()).map(a -> new Item(key, domain, a.id(), e.userId(),
                    scope.agentId(), a.content(), a.content(), a.content(), a.updatedAt(), a.tags(), Optional.empty(),
                    a.createdAt(), a.metadata(), a.validTo()));
            case MESSAGE -> store.messages().get(scope, Long.parseLong(e.id())).filter(m -> !m.content().isBlank())
                    .map(m -> new Item(key, domain, Long.toString(m.id()), e.userId(), scope.agentId(), m.content(),
                            withContext(scope, m), embeddedWithContext(scope, m), m.createdAt(), List.of(), Optional.of(m.role()),
                            m.createdAt()));
            case BLOCK -> store.blocks().get(scope, e.id()).filter(b -> !b.isShared(scope) && !b.value().isBlank())
                    .map(b -> new Item(key, domain, b.label(), e.userId(), scope.agentId(), b.value(), b.value(),
                            b.value(), b.updatedAt(), List.of(), Optional.empty(), b.createdAt()));
            case NOTE, PASSAGE -> throw new IllegalStateException("handled above");
        };
    }

    /**
     * A message's BM25 text: its date, then up to {@link #before} earlier messages of its session, the message, and up
     * to {@link #after} later ones. The date lets a question that names a day find what was said on it.
     */
    private String withContext(Scope scope, ConversationMessage m) {
        List<String> parts = new ArrayList<>();
        parts.add(DATE.format(m.createdAt()));
        if (before > 0) {
            List<ConversationMessage> earlier = store.messages().list(scope, MessageQuery.all().withSession(m.sessionId())
                    .withIdRange(Long.MIN_VALUE, m.id()).newest(before));
            earlier.stream().map(ConversationMessage::content).filter(c -> !c.isBlank()).forEach(parts::add);
        }
        parts.add(m.content());
        if (after > 0) {
            List<ConversationMessage> later = store.messages().list(scope, MessageQuery.all().withSession(m.sessionId())
                    .withIdRange(m.id(), Long.MAX_VALUE).withLimit(after));
            later.stream().map(ConversationMessage::content).filter(c -> !c.isBlank()).forEach(parts::add);
        }
        return String.join("\n", parts);
    }

    /**
     * What is embedded of a message: up to {@link #embeddedBefore} earlier messages of its session, then the message, so
     * that a reply's vector carries what it replies to (contextual chunking; the cost is at ingest only).
     */
    private String embeddedWithContext(Scope scope, ConversationMessage m) {
        if (embeddedBefore == 0) {
            return m.content();
        }
        List<String> parts = new ArrayList<>();
        store.messages().list(scope, MessageQuery.all().withSession(m.sessionId()).withIdRange(Long.MIN_VALUE, m.id())
                .newest(embeddedBefore)).stream().map(ConversationMessage::content).filter(c -> !c.isBlank()).forEach(parts::add);
        parts.add(m.content());
        return String.join("\n", parts);
    }

    /** The longest first line that counts as a title. */
    static final int MAX_TITLE_CHARS = 300;

    /**
     * A document's title: the first line of an archival entry, note or file passage that has more lines after it, when
     * that line is at most {@link #MAX_TITLE_CHARS} characters (a heading, a paper's title, a file's first line); empty
     * for conversation messages and blocks, and for a text of one line.
     */
    static String title(SearchDomain domain, String text) {
        if (domain == SearchDomain.CONVERSATIONS || domain == SearchDomain.BLOCKS) {
            return "";
        }
        int end = text.indexOf('\n');
        if (end <= 0 || end > MAX_TITLE_CHARS || text.substring(end + 1).isBlank()) {
            return "";
        }
        return text.substring(0, end).strip();
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
        long created = Columns.micros(item.created());
        d.add(new LongPoint(CREATED, created));
        d.add(new org.apache.lucene.document.NumericDocValuesField(CREATED, created));
        d.add(new LongPoint(VALID_TO, item.validTo().map(Columns::micros).orElse(Long.MAX_VALUE)));
        if (item.validTo().isPresent()) {
            d.add(new StringField(SUPERSEDED, "1", Field.Store.NO));
        }
        if (!item.metadata().isEmpty()) {
            d.add(new org.apache.lucene.document.BinaryDocValuesField(METADATA, new BytesRef(item.metadata().json())));
        }
        for (String tag : item.tags()) {
            d.add(new StringField(TAG, tag, Field.Store.NO));
        }
        item.role().ifPresent(r -> d.add(new StringField(ROLE, r.name(), Field.Store.NO)));
        d.add(new TextField(TEXT, item.lexical(), Field.Store.NO));
        // The entity signal is measured on conversations only (LoCoMo): other items' scores stay as they were.
        String names = item.domain() == SearchDomain.CONVERSATIONS ? Mentions.of(item.text()) : "";
        if (!names.isEmpty()) {
            d.add(new TextField(NAMES, names, Field.Store.NO));
        }
        String title = title(item.domain(), item.text());
        if (!title.isEmpty()) {
            d.add(new TextField(TITLE, title, Field.Store.NO));
        }
        d.add(new org.apache.lucene.document.BinaryDocValuesField(CONTENT, new BytesRef(item.text())));
        if (vector != null) { // null while the embedding model is unavailable: the document is found by BM25 alone
            d.add(new KnnFloatVectorField(VECTOR, vector, VectorSimilarityFunction.DOT_PRODUCT));
        }
        return d;
    }

    /** The scope-and-domain terms a request covers: one per domain, and one per folder for {@link SearchDomain#FILES}. */
    static List<String> scopeDomains(dev.engram.memory.SearchRequest r) {
        List<String> keys = new ArrayList<>();
        for (SearchDomain d : r.orderedDomains()) {
            if (d == SearchDomain.FILES) {
                r.folders().stream().sorted().forEach(f -> keys.add(scopeDomain(r.scope().userId(), f, d)));
            } else {
                keys.add(scopeDomain(r.scope().userId(), r.scope().agentId(), d));
            }
        }
        return keys;
    }

    /**
     * The scope-and-domain term: notes belong to the user alone, a file's passage to the user's folder ({@code agentId}
     * holds the folder), everything else to the user's agent.
     */
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
        String text = item.semantic();
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
