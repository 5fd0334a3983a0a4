package dev.engram.memory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MemorySearch} over a Lucene index: one document per archival entry, message, note and
 * block, with the text analysed by Lucene's {@link EnglishAnalyzer} (standard tokenizer, lower-case,
 * English stop words, possessive removal, Porter stemming) for BM25, and the embedding in an HNSW
 * vector field (dot product on unit vectors). Scope and the other filters are Lucene filter clauses
 * inside both retrievers; for a filter that matches few documents Lucene's k-NN scores them exactly.
 */
public final class LuceneMemorySearch implements MemorySearch {
    private static final Logger LOG = LoggerFactory.getLogger(LuceneMemorySearch.class);

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
    static final String SEQ_DATA = "engram.seq";
    static final String EMBEDDER_DATA = "engram.embedder";
    /** One term per (user, agent, domain): the scope filter is one flat term set instead of nested clauses. */
    static final String SCOPE_DOMAIN = "scope_domain";
    static final String FORMAT_DATA = "engram.format";
    /** The document layout; an index written with another is rebuilt at open. */
    static final String FORMAT = "4";
    /** How often a long catch-up commits its progress (each commit also ends a segment). */
    static final Duration COMMIT_INTERVAL = Duration.ofMinutes(5);

    private final MemoryStore store;
    private final Embedder embedder;
    private final int candidates;
    private final int batchEvents;
    private final int conversationContext;
    private final int exactVectorSearchUpTo;
    private final Analyzer analyzer = new EnglishAnalyzer();
    private final Directory directory;
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final ReentrantLock indexLock = new ReentrantLock();
    /**
     * The one thread that writes the index: periodic catch-up, catch-up on behalf of searches and
     * {@link #awaitIndexed()}, and reindex. Callers wait for it but never run Lucene writes on their own
     * thread, so interrupting a caller (a timed-out tool, Ctrl-C) cannot interrupt Lucene's I/O, which
     * closes its channels and breaks the index lock.
     */
    private final java.util.concurrent.ScheduledExecutorService writerThread = java.util.concurrent.Executors
            .newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("engram-index-writer").factory());
    /**
     * Embeds the next batch while one is indexed. CPU-bound work runs on platform threads: on
     * virtual threads it overlapped measurably worse with the caller's own work.
     */
    private final java.util.concurrent.ExecutorService indexer = java.util.concurrent.Executors.newSingleThreadExecutor(
            Thread.ofPlatform().daemon().name("engram-index-prepare").factory());
    /** Runs k-NN beside BM25 in hybrid searches; as many threads as processors, so searches never queue behind indexing. */
    private final java.util.concurrent.ExecutorService knnPool = java.util.concurrent.Executors.newFixedThreadPool(
            Runtime.getRuntime().availableProcessors(), Thread.ofPlatform().daemon().name("engram-knn-", 0).factory());
    private volatile long appliedSeq;
    /** The format of the index found at open when it was older and had to be started anew. */
    private final Optional<String> oldFormat;
    private volatile boolean closed;

    private LuceneMemorySearch(Builder b) {
        this.store = b.store;
        this.embedder = b.embedder;
        this.candidates = b.candidates;
        this.batchEvents = b.batchEvents;
        this.conversationContext = b.conversationContext;
        this.exactVectorSearchUpTo = b.exactVectorSearchUpTo;
        try {
            this.directory = b.directory == null ? new ByteBuffersDirectory() : FSDirectory.open(b.directory);
            oldFormat = olderFormat(directory);
            IndexWriterConfig config = new IndexWriterConfig(analyzer);
            // An index of an older format may be sorted differently, which Lucene cannot append to: start it anew.
            config.setOpenMode(oldFormat.isPresent() ? IndexWriterConfig.OpenMode.CREATE
                    : IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
            // Each scope's documents side by side: a scoped query then reads a short run of each posting
            // list instead of skipping through the postings of every other scope.
            config.setIndexSort(new org.apache.lucene.search.Sort(new org.apache.lucene.search.SortField(SCOPE_DOMAIN,
                    org.apache.lucene.search.SortField.Type.STRING)));
            // A bulk load (a rebuild, a long backlog) then becomes a few large segments rather than many
            // small ones: every search pays per segment (term lookups, a graph walk each), so fewer is faster.
            config.setRAMBufferSizeMB(b.indexingBufferMb);
            org.apache.lucene.codecs.KnnVectorsFormat vectors = new org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat(
                    b.graphMaxConn, b.graphBeamWidth);
            // Same codec name as the default, so any Lucene reads the index; only how graphs are built differs.
            config.setCodec(new org.apache.lucene.codecs.lucene104.Lucene104Codec() {
                @Override
                public org.apache.lucene.codecs.KnnVectorsFormat getKnnVectorsFormatForField(String field) {
                    return vectors;
                }
            });
            this.writer = new IndexWriter(directory, config);
            this.searchers = new SearcherManager(writer, null);
        } catch (IOException e) {
            throw new MemoryException("Cannot open the search index" + (b.directory == null ? "" : " in " + b.directory)
                    + ": " + e.getMessage(), e);
        }
        Map<String, String> data = new HashMap<>();
        writer.getLiveCommitData().forEach(e -> data.put(e.getKey(), e.getValue()));
        long committed = Long.parseLong(data.getOrDefault(SEQ_DATA, "0"));
        String builtWith = data.get(EMBEDDER_DATA);
        long storeSeq = store.changes().lastSeq();
        this.appliedSeq = committed;
        if (builtWith != null && !builtWith.equals(embedder.id())) {
            LOG.info("Search index was built with embedder {}, now {}: rebuilding it", builtWith, embedder.id());
            reindex((d, t) -> { });
        } else if (oldFormat.isPresent()) {
            LOG.info("Search index had document format {}, now {}: rebuilding it", oldFormat.get(), FORMAT);
            reindex((d, t) -> { });
        } else if (committed > storeSeq) {
            LOG.warn("Search index is ahead of the memory store (sequence {} > {}): the store was restored or replaced; "
                    + "rebuilding the index", committed, storeSeq);
            reindex((d, t) -> { });
        }
        if (!b.backgroundInterval.isZero()) {
            long every = b.backgroundInterval.toMillis();
            writerThread.scheduleWithFixedDelay(this::followLog, every, every, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    /** Starts a builder; by default the index lives in memory. */
    public static Builder builder(MemoryStore store, Embedder embedder) {
        return new Builder(store, embedder);
    }

    /** One round of the background indexer, on the writer thread. */
    private void followLog() {
        if (closed) {
            return;
        }
        try {
            if (store.changes().lastSeq() > appliedSeq) {
                locked(() -> catchUp((d, t) -> { }));
            }
        } catch (RuntimeException e) {
            if (!closed) {
                LOG.warn("Background indexing failed; it will be retried", e);
            }
        }
    }

    private void locked(Runnable work) {
        indexLock.lock();
        try {
            work.run();
        } finally {
            indexLock.unlock();
        }
    }

    /** Runs {@code work} on the writer thread and waits for it; an interrupt stops the waiting, not the work. */
    private void onWriterThread(Runnable work) {
        java.util.concurrent.Future<?> done = writerThread.submit(() -> locked(work));
        try {
            done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MemoryException("Interrupted while waiting for the search index to catch up.");
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new MemoryException("Updating the search index failed: " + e.getCause(), e.getCause());
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new MemoryException("The search index is closed.");
        }
    }

    @Override
    public long indexedSeq() {
        return appliedSeq;
    }

    @Override
    public long awaitIndexed() {
        return catchUpTo(store.changes().lastSeq());
    }

    /**
     * Applies the change log up to at least {@code seq}. The common case, nothing new, returns at once
     * without a hand-off, so concurrent searches do not queue here.
     */
    private long catchUpTo(long seq) {
        checkOpen();
        if (seq <= appliedSeq) {
            return appliedSeq;
        }
        onWriterThread(() -> catchUp((d, t) -> { }));
        return appliedSeq;
    }

    @Override
    public void reindex(ProgressListener progress) {
        Objects.requireNonNull(progress, "progress");
        onWriterThread(() -> {
            try {
                writer.deleteAll();
                appliedSeq = 0;
                commit();
                catchUp(progress);
            } catch (IOException e) {
                throw new UncheckedIOException("rebuilding the search index failed", e);
            }
        });
    }

    /**
     * Applies the log from {@link #appliedSeq} to its end. Caller holds {@link #indexLock}. While one
     * batch is written to Lucene, the next is read from the store and embedded on another thread, so
     * that embedding and graph building overlap.
     */
    private void catchUp(ProgressListener progress) {
        long target = store.changes().lastSeq();
        if (target <= appliedSeq) {
            return;
        }
        long start = appliedSeq;
        try {
            long lastCommit = System.nanoTime();
            java.util.concurrent.CompletableFuture<Batch> next = prepareAsync(appliedSeq);
            while (true) {
                Batch batch = join(next);
                if (batch.events().isEmpty()) {
                    break;
                }
                next = prepareAsync(batch.lastSeq());
                write(batch);
                appliedSeq = batch.lastSeq();
                progress.progress(appliedSeq - start, Math.max(target, appliedSeq) - start);
                // A long catch-up commits now and then, so that a crash loses at most that much work; each
                // commit also ends a segment, so not more often than COMMIT_INTERVAL.
                if (System.nanoTime() - lastCommit >= COMMIT_INTERVAL.toNanos()) {
                    commit();
                    lastCommit = System.nanoTime();
                }
            }
            commit();
            searchers.maybeRefreshBlocking();
        } catch (IOException e) {
            throw new UncheckedIOException("updating the search index failed", e);
        }
    }

    /** A batch of change-log events with the current state of their items, embedded, ready to write. */
    private record Batch(List<ChangeEvent> events, List<String> deletes, List<Item> upserts, List<float[]> vectors) {
        long lastSeq() {
            return events.get(events.size() - 1).seq();
        }
    }

    private java.util.concurrent.CompletableFuture<Batch> prepareAsync(long afterSeq) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> prepare(afterSeq), indexer);
    }

    private static <T> T join(java.util.concurrent.CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    /** Reads the next events and the current state of their items, and embeds the items. */
    private Batch prepare(long afterSeq) {
        List<ChangeEvent> events = store.changes().since(afterSeq, batchEvents);
        // Only the last event per item matters: the current state is fetched from the store.
        Map<String, ChangeEvent> latest = new LinkedHashMap<>();
        for (ChangeEvent e : events) {
            latest.remove(key(e));
            latest.put(key(e), e);
        }
        List<String> deletes = new ArrayList<>();
        List<Item> upserts = new ArrayList<>();
        for (Map.Entry<String, ChangeEvent> entry : latest.entrySet()) {
            Optional<Item> item = entry.getValue().op() == ChangeEvent.Op.DELETE ? Optional.empty() : load(entry.getValue());
            if (item.isPresent()) {
                upserts.add(item.get());
            } else {
                deletes.add(entry.getKey());
            }
        }
        List<float[]> vectors = upserts.isEmpty() ? List.of() : embedder.embed(upserts.stream().map(Item::indexed).toList());
        return new Batch(events, deletes, upserts, vectors);
    }

    private void write(Batch batch) throws IOException {
        for (String key : batch.deletes()) {
            writer.deleteDocuments(new Term(KEY, key));
        }
        for (int i = 0; i < batch.upserts().size(); i++) {
            writer.updateDocument(new Term(KEY, batch.upserts().get(i).key()), document(batch.upserts().get(i), batch.vectors().get(i)));
        }
    }

    private void commit() throws IOException {
        writer.setLiveCommitData(Map.of(SEQ_DATA, Long.toString(appliedSeq), EMBEDDER_DATA, embedder.id(),
                FORMAT_DATA, FORMAT).entrySet());
        writer.commit();
    }

    /**
     * The current state of one changed item, or empty if it no longer exists (or has no text).
     * {@code indexed} is what is analysed and embedded; {@code text} what a hit shows.
     */
    private record Item(String key, SearchDomain domain, String id, String userId, String agentId, String text,
            String indexed, Instant time, List<String> tags, Optional<MessageRole> role) {
    }

    private static String key(ChangeEvent e) {
        return e.entity().name() + '\u0000' + e.userId() + '\u0000' + e.agentId().orElse("") + '\u0000' + e.id();
    }

    private Optional<Item> load(ChangeEvent e) {
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

    private static Document document(Item item, float[] vector) {
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
        long micros = SqlTimes.toMicros(item.time());
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

    @Override
    public List<SearchHit> search(SearchRequest request) {
        Objects.requireNonNull(request, "request");
        // Every write made through the store is seen here without asking the database on each search;
        // writes by another process sharing the file come in with the background indexer or awaitIndexed().
        catchUpTo(store.changes().knownLastSeq());
        try {
            IndexSearcher searcher = searchers.acquire();
            try {
                return search(searcher, request);
            } finally {
                searchers.release(searcher);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("search failed", e);
        }
    }

    private record Ranked(int doc, double score) {
    }

    private List<SearchHit> search(IndexSearcher searcher, SearchRequest request) throws IOException {
        Query filter = filter(request);
        int k = request.k();
        int depth = request.mode() == SearchMode.HYBRID ? Math.max(k, candidates) : k;
        // Hybrid: the query embedding and k-NN run on another thread while BM25 runs here.
        java.util.concurrent.CompletableFuture<List<Ranked>> knnFuture = request.mode() == SearchMode.BM25
                ? java.util.concurrent.CompletableFuture.completedFuture(List.of())
                : java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return knn(searcher, request, filter, Math.max(depth, candidates), depth);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, knnPool);
        List<Ranked> lexical = request.mode() == SearchMode.VECTOR ? List.of() : bm25(searcher, request.query(), filter, depth);
        List<Ranked> semantic = join(knnFuture);

        Map<Integer, double[]> fused = new LinkedHashMap<>();
        Map<Integer, SearchHit.Component> lexicalRank = new HashMap<>();
        Map<Integer, SearchHit.Component> semanticRank = new HashMap<>();
        record(lexical, lexicalRank);
        record(semantic, semanticRank);
        Fusion fusion = request.fusion();
        if (request.mode() != SearchMode.HYBRID) {
            for (Ranked r : lexical.isEmpty() ? semantic : lexical) {
                fused.put(r.doc(), new double[] {r.score()});
            }
        } else if (fusion.kind() == Fusion.Kind.RRF) {
            for (List<Ranked> list : List.of(lexical, semantic)) {
                for (int i = 0; i < list.size(); i++) {
                    fused.computeIfAbsent(list.get(i).doc(), d -> new double[1])[0] += 1.0 / (fusion.rrfK() + i + 1);
                }
            }
        } else {
            addNormalised(lexical, fusion.ftsWeight(), fused);
            addNormalised(semantic, fusion.vectorWeight(), fused);
        }
        List<Map.Entry<Integer, double[]>> ordered = new ArrayList<>(fused.entrySet());
        ordered.sort(Comparator.comparingDouble((Map.Entry<Integer, double[]> e) -> -e.getValue()[0])
                .thenComparingInt(Map.Entry::getKey));
        List<Map.Entry<Integer, double[]>> top = ordered.subList(0, Math.min(k, ordered.size()));
        Map<Integer, Payload> payloads = payloads(searcher, top.stream().mapToInt(Map.Entry::getKey).sorted().toArray());
        List<SearchHit> hits = new ArrayList<>(top.size());
        for (Map.Entry<Integer, double[]> e : top) {
            Payload p = payloads.get(e.getKey());
            hits.add(new SearchHit(p.id(), p.domain(), p.text(), SqlTimes.fromMicros(p.micros()), e.getValue()[0],
                    Optional.ofNullable(lexicalRank.get(e.getKey())), Optional.ofNullable(semanticRank.get(e.getKey()))));
        }
        return hits;
    }

    /** What a hit shows, read from the index. */
    private record Payload(String id, SearchDomain domain, String text, long micros) {
    }

    /**
     * Reads the hits' id, domain, text and time from doc values, {@code docs} in ascending order so
     * each segment's iterators only move forward. Doc values rather than stored fields: a stored
     * document sits in a compressed block of many that must be decompressed to read one, while a
     * doc value is read in place.
     */
    private static Map<Integer, Payload> payloads(IndexSearcher searcher, int[] docs) throws IOException {
        Map<Integer, Payload> out = new HashMap<>();
        List<org.apache.lucene.index.LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        int i = 0;
        while (i < docs.length) {
            org.apache.lucene.index.LeafReaderContext leaf = leaves.get(org.apache.lucene.index.ReaderUtil.subIndex(docs[i], leaves));
            org.apache.lucene.index.LeafReader reader = leaf.reader();
            org.apache.lucene.index.BinaryDocValues ids = org.apache.lucene.index.DocValues.getBinary(reader, ID);
            org.apache.lucene.index.BinaryDocValues texts = org.apache.lucene.index.DocValues.getBinary(reader, CONTENT);
            org.apache.lucene.index.SortedDocValues domains = org.apache.lucene.index.DocValues.getSorted(reader, DOMAIN);
            org.apache.lucene.index.NumericDocValues times = org.apache.lucene.index.DocValues.getNumeric(reader, TIME);
            int end = leaf.docBase + reader.maxDoc();
            for (; i < docs.length && docs[i] < end; i++) {
                int doc = docs[i] - leaf.docBase;
                if (!ids.advanceExact(doc) || !texts.advanceExact(doc) || !domains.advanceExact(doc) || !times.advanceExact(doc)) {
                    throw new IllegalStateException("search index document " + docs[i] + " lacks its hit fields");
                }
                SearchDomain domain = SearchDomain.valueOf(domains.lookupOrd(domains.ordValue()).utf8ToString()
                        .toUpperCase(java.util.Locale.ROOT));
                out.put(docs[i], new Payload(ids.binaryValue().utf8ToString(), domain, texts.binaryValue().utf8ToString(),
                        times.longValue()));
            }
        }
        return out;
    }

    private static void record(List<Ranked> list, Map<Integer, SearchHit.Component> ranks) {
        for (int i = 0; i < list.size(); i++) {
            ranks.put(list.get(i).doc(), new SearchHit.Component(i + 1, list.get(i).score()));
        }
    }

    /** Min-max normalises a list's scores to [0, 1] and adds them, weighted. */
    private static void addNormalised(List<Ranked> list, double weight, Map<Integer, double[]> fused) {
        if (list.isEmpty()) {
            return;
        }
        double max = list.get(0).score();
        double min = list.get(list.size() - 1).score();
        for (Ranked r : list) {
            double norm = max == min ? 1.0 : (r.score() - min) / (max - min);
            fused.computeIfAbsent(r.doc(), d -> new double[1])[0] += weight * norm;
        }
    }

    private List<Ranked> bm25(IndexSearcher searcher, String text, Query filter, int depth) throws IOException {
        BooleanQuery.Builder terms = new BooleanQuery.Builder();
        int count = 0;
        try (TokenStream ts = analyzer.tokenStream(TEXT, text)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken() && count < IndexSearcher.getMaxClauseCount() - 1) {
                terms.add(new TermQuery(new Term(TEXT, term.toString())), BooleanClause.Occur.SHOULD);
                count++;
            }
            ts.end();
        }
        if (count == 0) {
            return List.of();
        }
        Query query = new BooleanQuery.Builder().add(terms.build(), BooleanClause.Occur.MUST)
                .add(filter, BooleanClause.Occur.FILTER).build();
        // The total hit count is never used: let block-max WAND skip from the first hit on, instead of
        // counting the first 1,000 matches exactly as IndexSearcher.search(query, n) does.
        return ranked(searcher.search(query, new TopScoreDocCollectorManager(depth, null, depth)));
    }

    private List<Ranked> knn(IndexSearcher searcher, SearchRequest request, Query filter, int beam, int depth)
            throws IOException {
        float[] vector = embedder.embedQuery(request.query());
        long scopeSize = scopeSize(searcher, request);
        if (scopeSize <= exactVectorSearchUpTo) {
            return exactKnn(searcher, vector, filter, depth);
        }
        // When the scope is the whole index (one user, one agent), a filter would only cost a bitset of
        // every document per search.
        org.apache.lucene.index.IndexReader reader = searcher.getIndexReader();
        boolean everything = scopeSize == reader.maxDoc() && reader.numDocs() == reader.maxDoc() && request.from().isEmpty()
                && request.until().isEmpty() && request.tags().isEmpty() && request.roles().isEmpty();
        TopDocs top = searcher.search(new KnnFloatVectorQuery(VECTOR, vector, beam, everything ? null : filter), beam);
        List<Ranked> all = ranked(top);
        return all.subList(0, Math.min(depth, all.size()));
    }

    /** An upper bound of the documents the request's scope holds (deleted ones included), from the terms' document frequencies. */
    private static long scopeSize(IndexSearcher searcher, SearchRequest request) throws IOException {
        long n = 0;
        for (SearchDomain d : request.orderedDomains()) {
            n += searcher.getIndexReader().docFreq(new Term(SCOPE_DOMAIN,
                    scopeDomain(request.scope().userId(), request.scope().agentId(), d)));
        }
        return n;
    }

    /**
     * Exact nearest neighbours among the documents matching {@code filter}. A small scope in a large
     * index is where HNSW does worst: the graph walk visits many nodes outside the scope before
     * Lucene gives up and scores the scope exactly anyway. Scoring the scope directly is faster
     * there, and its recall is 1.
     */
    private static List<Ranked> exactKnn(IndexSearcher searcher, float[] query, Query filter, int depth) throws IOException {
        java.util.PriorityQueue<Ranked> best = new java.util.PriorityQueue<>(depth + 1,
                Comparator.comparingDouble(Ranked::score).thenComparing(Ranked::doc, Comparator.reverseOrder()));
        org.apache.lucene.search.Weight weight = searcher.createWeight(searcher.rewrite(filter),
                org.apache.lucene.search.ScoreMode.COMPLETE_NO_SCORES, 1f);
        for (org.apache.lucene.index.LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            org.apache.lucene.index.FloatVectorValues values = leaf.reader().getFloatVectorValues(VECTOR);
            org.apache.lucene.search.Scorer scorer = values == null ? null : weight.scorer(leaf);
            if (scorer == null) {
                continue;
            }
            org.apache.lucene.util.Bits live = leaf.reader().getLiveDocs();
            org.apache.lucene.index.KnnVectorValues.DocIndexIterator vectors = values.iterator();
            org.apache.lucene.search.DocIdSetIterator docs = scorer.iterator();
            for (int doc = docs.nextDoc(); doc != org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
                if ((live != null && !live.get(doc)) || (vectors.docID() < doc ? vectors.advance(doc) : vectors.docID()) != doc) {
                    continue;
                }
                float score = VectorSimilarityFunction.DOT_PRODUCT.compare(query, values.vectorValue(vectors.index()));
                best.add(new Ranked(leaf.docBase + doc, score));
                if (best.size() > depth) {
                    best.poll();
                }
            }
        }
        List<Ranked> out = new ArrayList<>(best);
        out.sort(Comparator.comparingDouble((Ranked r) -> -r.score()).thenComparingInt(Ranked::doc));
        return out;
    }

    private static List<Ranked> ranked(TopDocs top) {
        List<Ranked> out = new ArrayList<>(top.scoreDocs.length);
        for (ScoreDoc sd : top.scoreDocs) {
            out.add(new Ranked(sd.doc, sd.score));
        }
        return out;
    }

    /** Scope, domains and the optional filters, as one filter query used inside both retrievers. */
    static Query filter(SearchRequest r) {
        BooleanQuery.Builder f = new BooleanQuery.Builder();
        List<BytesRef> keys = new ArrayList<>();
        for (SearchDomain d : r.orderedDomains()) {
            keys.add(new BytesRef(scopeDomain(r.scope().userId(), r.scope().agentId(), d)));
        }
        f.add(keys.size() == 1 ? new TermQuery(new Term(SCOPE_DOMAIN, keys.getFirst()))
                : new TermInSetQuery(SCOPE_DOMAIN, keys), BooleanClause.Occur.FILTER);
        if (r.from().isPresent() || r.until().isPresent()) {
            long lo = r.from().map(SqlTimes::toMicros).orElse(Long.MIN_VALUE);
            long hi = r.until().map(u -> SqlTimes.toMicros(u) - 1).orElse(Long.MAX_VALUE);
            f.add(LongPoint.newRangeQuery(TIME, lo, hi), BooleanClause.Occur.FILTER);
        }
        if (!r.tags().isEmpty()) {
            f.add(new TermInSetQuery(TAG, r.tags().stream().map(BytesRef::new).toList()), BooleanClause.Occur.FILTER);
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

    /** The format of an existing index written by an older layout, if it is one. */
    private static Optional<String> olderFormat(Directory directory) throws IOException {
        if (!DirectoryReader.indexExists(directory)) {
            return Optional.empty();
        }
        Map<String, String> data = org.apache.lucene.index.SegmentInfos.readLatestCommit(directory).getUserData();
        String format = data.getOrDefault(FORMAT_DATA, "1");
        return data.containsKey(EMBEDDER_DATA) && !FORMAT.equals(format) ? Optional.of(format) : Optional.empty();
    }

    /** The scope-and-domain term: notes belong to the user alone, everything else to the user's agent. */
    static String scopeDomain(String userId, String agentId, SearchDomain domain) {
        return userId + '\u0000' + (domain == SearchDomain.NOTES ? "" : agentId) + '\u0000' + domain.key();
    }

    /** Documents in the index (for tests and reports). */
    int documentCount() throws IOException {
        try (DirectoryReader reader = DirectoryReader.open(writer)) {
            return reader.numDocs();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new MemoryException("The search index is closed.");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // No interrupts: let a running catch-up finish, then stop.
        writerThread.close();
        indexLock.lock();
        try {
            indexer.close();
            knnPool.close();
            searchers.close();
            writer.close();
            directory.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing the search index failed", e);
        } finally {
            indexLock.unlock();
        }
    }

    /** Configures a {@link LuceneMemorySearch}. */
    public static final class Builder {
        private final MemoryStore store;
        private final Embedder embedder;
        private Path directory;
        private int candidates = 50;
        private int batchEvents = 256;
        private Duration backgroundInterval = Duration.ofMillis(250);
        private int conversationContext;
        private int graphMaxConn = 16;
        private int graphBeamWidth = 100;
        private int exactVectorSearchUpTo = 20_000;
        private int indexingBufferMb = defaultIndexingBufferMb();

        private Builder(MemoryStore store, Embedder embedder) {
            this.store = Objects.requireNonNull(store, "store must not be null");
            this.embedder = Objects.requireNonNull(embedder, "embedder must not be null");
        }

        /** Where the index lives; without one it is held in memory and rebuilt from the store on open. */
        public Builder directory(Path directory) {
            this.directory = Objects.requireNonNull(directory, "directory must not be null");
            return this;
        }

        /**
         * How deep each retriever looks before a hybrid search fuses, and the k-NN beam width (a
         * search for k results looks max(k, candidates) deep); default 50, at least 10. 50 keeps
         * HNSW recall@10 above 0.99 at 100k documents and halves k-NN time against 100.
         */
        public Builder candidates(int candidates) {
            if (candidates < 10 || candidates > 10_000) {
                throw new IllegalArgumentException("candidates must be between 10 and 10000, got " + candidates);
            }
            this.candidates = candidates;
            return this;
        }

        /** Change-log events embedded per batch while indexing; default 256. */
        public Builder batchEvents(int batchEvents) {
            if (batchEvents < 1) {
                throw new IllegalArgumentException("batch events must be at least 1, got " + batchEvents);
            }
            this.batchEvents = batchEvents;
            return this;
        }

        /** How often the background indexer checks the change log; {@link Duration#ZERO} turns it off. Default 250 ms. */
        public Builder backgroundInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval must not be null");
            if (interval.isNegative()) {
                throw new IllegalArgumentException("background interval must not be negative, got " + interval);
            }
            this.backgroundInterval = interval;
            return this;
        }

        /**
         * Index each conversation message together with up to {@code previous} earlier messages of
         * its session (hits still show the message alone). A reply is often only findable with the
         * question it answers: on LoCoMo, 2 previous messages raise BM25 recall@10 from 0.59 to 0.72.
         * Default 0 (off); at most 10.
         */
        public Builder conversationContext(int previous) {
            if (previous < 0 || previous > 10) {
                throw new IllegalArgumentException("conversation context must be between 0 and 10 messages, got " + previous);
            }
            this.conversationContext = previous;
            return this;
        }

        /**
         * The HNSW graph's shape for vectors written from now on: {@code maxConn} neighbours per node
         * (default 16) and the beam width while building (default 100). Smaller values build faster
         * and search slightly less accurately; existing segments keep the shape they were built with.
         */
        public Builder graph(int maxConn, int beamWidth) {
            if (maxConn < 2 || maxConn > 512) {
                throw new IllegalArgumentException("graph max connections must be between 2 and 512, got " + maxConn);
            }
            if (beamWidth < 8 || beamWidth > 3200) {
                throw new IllegalArgumentException("graph beam width must be between 8 and 3200, got " + beamWidth);
            }
            this.graphMaxConn = maxConn;
            this.graphBeamWidth = beamWidth;
            return this;
        }

        /**
         * A vector search whose scope holds at most this many documents scores them all instead of
         * walking the HNSW graph: exact (recall 1) and, for a small scope in a large index, faster,
         * since the graph walk would visit many documents outside the scope. Default 20,000; 0 always
         * walks the graph.
         */
        public Builder exactVectorSearchUpTo(int documents) {
            if (documents < 0) {
                throw new IllegalArgumentException("exact vector search limit must not be negative, got " + documents);
            }
            this.exactVectorSearchUpTo = documents;
            return this;
        }

        /**
         * Memory for documents not yet written to a segment, in megabytes (16 to 4096). A bulk load
         * becomes one segment per this much indexed data, and searches pay per segment, so a bigger
         * buffer makes a large index faster to search. Default: an eighth of the maximum heap, between
         * 64 and 1024 (1024 for a heap of 8 GiB or more).
         */
        public Builder indexingBufferMb(int megabytes) {
            if (megabytes < 16 || megabytes > 4096) {
                throw new IllegalArgumentException("indexing buffer must be between 16 and 4096 MB, got " + megabytes);
            }
            this.indexingBufferMb = megabytes;
            return this;
        }

        static int defaultIndexingBufferMb() {
            return (int) Math.clamp(Runtime.getRuntime().maxMemory() / 8 / (1024 * 1024), 64, 1024);
        }

        public LuceneMemorySearch build() {
            return new LuceneMemorySearch(this);
        }
    }
}
