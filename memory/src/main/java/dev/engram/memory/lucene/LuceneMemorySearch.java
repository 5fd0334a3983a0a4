package dev.engram.memory.lucene;

import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.SearchHealth;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.search.IndexSearcher;

/**
 * {@link MemorySearch} over a Lucene index: one document per archival entry, message, note and
 * block, with the text analysed by Lucene's {@link EnglishAnalyzer} (standard tokenizer, lower-case,
 * English stop words, possessive removal, Porter stemming) for BM25, and the embedding in an HNSW
 * vector field (dot product on unit vectors). Scope and the other filters are Lucene filter clauses
 * inside both retrievers; for a filter that matches few documents the vectors are scored exactly.
 *
 * <p>Three parts: {@link LuceneIndexer} follows the store's change log into the index,
 * {@link LuceneDocuments} maps memory to documents, {@link LuceneRetriever} answers searches.
 */
public final class LuceneMemorySearch implements MemorySearch {
    /** Earlier messages of its session BM25 sees with each message, by default. */
    public static final int DEFAULT_CONTEXT_BEFORE = 2;
    /** Later messages of its session BM25 sees with each message, by default. */
    public static final int DEFAULT_CONTEXT_AFTER = 1;
    /** The weight of the entity signal (names the query and a passage both mention) beside BM25 over the text, by default. */
    public static final double DEFAULT_NAME_WEIGHT = 0.5;
    /** The weight of the title signal (query terms in a document's title) beside BM25 over the text, by default. */
    public static final double DEFAULT_TITLE_WEIGHT = 0;
    /** Earlier messages of its session embedded with each message, by default. */
    public static final int DEFAULT_EMBEDDED_CONTEXT = 0;
    /** Whether a weighted hybrid search scores each candidate by both retrievers, by default. */
    public static final boolean DEFAULT_COMPLETE_FUSION_SCORES = true;
    /** How many segments of about one size the merge policy allows before it merges them, by default (Lucene's). */
    public static final double DEFAULT_SEGMENTS_PER_TIER = 10;
    /** How deep each retriever looks before a hybrid search fuses, by default. */
    public static final int DEFAULT_CANDIDATES = 100;

    private final MemoryStore store;
    private final EmbedderWatch embedder;
    private final LuceneIndexer indexer;
    private final LuceneRetriever retriever;

    private LuceneMemorySearch(Builder b) {
        LuceneLogging.quietVectorizationUnlessConfigured();
        this.store = b.store;
        Analyzer analyzer = new EnglishAnalyzer();
        this.embedder = new EmbedderWatch(b.embedder);
        // One probe, so that a model that cannot embed shows in the health from the start, not at the first search.
        embedder.works();
        this.retriever = new LuceneRetriever(analyzer, embedder, b.candidates, b.exactVectorSearchUpTo, b.nameWeight, b.titleWeight,
                new LuceneRetriever.Tuning(b.completeScores, b.feedbackDocs, b.feedbackWeight, b.lexicalDocs,
                        b.lexicalTerms, b.lexicalWeight));
        this.indexer = new LuceneIndexer(b.store, embedder, new LuceneDocuments(b.store, b.contextBefore, b.contextAfter, b.embeddedBefore),
                analyzer, b.directory, b.batchEvents, b.indexingBufferMb, b.graphMaxConn, b.graphBeamWidth, b.segmentsPerTier,
                b.backgroundInterval, b.indexingThreads);
    }

    /** Starts a builder; by default the index lives in memory. */
    public static Builder builder(MemoryStore store, Embedder embedder) {
        return new Builder(store, embedder);
    }

    @Override
    public List<SearchHit> search(SearchRequest request) {
        Objects.requireNonNull(request, "request");
        // Every write made through the store to this scope is seen here without asking the database on each
        // search; other scopes' writes (a big note of another user) do not hold this search up; writes by
        // another process sharing the file come in with the background indexer or awaitIndexed().
        // Inside a unit of work of the store, its thread holds the store's write transaction, which the indexer
        // may need to read what changed: the search does not wait for it and sees the index as it stands.
        if (!store.isInTransaction()) {
            indexer.catchUpFor(request, store.changes().knownLastSeq());
        }
        try {
            IndexSearcher searcher = indexer.acquire();
            try {
                return retriever.search(searcher, request);
            } finally {
                indexer.release(searcher);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("search failed", e);
        }
    }

    /**
     * Degraded while the embedding model is unavailable (BM25 answers alone), while documents indexed meanwhile lack
     * their vectors, and when the index directory could not be used (an in-memory index stands in).
     */
    @Override
    public SearchHealth health() {
        List<String> reasons = new java.util.ArrayList<>();
        indexer.problem().ifPresent(reasons::add);
        reasons.addAll(embedder.reasons());
        return new SearchHealth(reasons);
    }

    @Override
    public long indexedSeq() {
        return indexer.indexedSeq();
    }

    @Override
    public long awaitIndexed() {
        if (store.isInTransaction()) {
            return indexer.visibleSeq(); // as in search: no waiting inside a unit of work, whose thread the indexer may need
        }
        return indexer.catchUpTo(store.changes().lastSeq());
    }

    @Override
    public void reindex(ProgressListener progress) {
        indexer.reindex(progress);
    }

    /** Documents in the index (for tests and reports). */
    int documentCount() throws IOException {
        return indexer.documentCount();
    }

    @Override
    public void close() {
        try {
            indexer.close();
        } finally {
            retriever.close();
        }
    }

    /** Configures a {@link LuceneMemorySearch}. */
    public static final class Builder {
        private final MemoryStore store;
        private final Embedder embedder;
        private Path directory;
        private int candidates = DEFAULT_CANDIDATES;
        private int batchEvents = 256;
        private Duration backgroundInterval = Duration.ofMillis(250);
        private int contextBefore = DEFAULT_CONTEXT_BEFORE;
        private int contextAfter = DEFAULT_CONTEXT_AFTER;
        private double nameWeight = DEFAULT_NAME_WEIGHT;
        private double titleWeight = DEFAULT_TITLE_WEIGHT;
        private int embeddedBefore = DEFAULT_EMBEDDED_CONTEXT;
        private boolean completeScores = DEFAULT_COMPLETE_FUSION_SCORES;
        private int feedbackDocs;
        private double feedbackWeight;
        private int lexicalDocs;
        private int lexicalTerms;
        private double lexicalWeight;
        private int graphMaxConn = 16;
        private double segmentsPerTier = DEFAULT_SEGMENTS_PER_TIER;
        private int graphBeamWidth = 100;
        private int exactVectorSearchUpTo = 20_000;
        private int indexingBufferMb = defaultIndexingBufferMb();
        private int indexingThreads = defaultIndexingThreads();

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
         * search for k results looks max(k, candidates) deep); default {@value LuceneMemorySearch#DEFAULT_CANDIDATES},
         * at least 10. Deeper lists give the fusion more to agree on (LoCoMo recall@10 +0.01 against 50, see the module
         * README); 50 halves the k-NN time of a graph search.
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
         * How many neighbouring messages of its session BM25 sees with each conversation message: {@code before} earlier
         * and {@code after} later ones (hits still show the message alone, and its vector is of the message alone). A
         * reply is often only findable with the question it answers, and a question with its answer. Default
         * {@value LuceneMemorySearch#DEFAULT_CONTEXT_BEFORE} and {@value LuceneMemorySearch#DEFAULT_CONTEXT_AFTER}
         * (chosen on LoCoMo, see the module README); each at most 10.
         */
        public Builder conversationContext(int before, int after) {
            if (before < 0 || before > 10 || after < 0 || after > 10) {
                throw new IllegalArgumentException("conversation context must be between 0 and 10 messages before and after, got "
                        + before + " and " + after);
            }
            this.contextBefore = before;
            this.contextAfter = after;
            return this;
        }

        /**
         * The weight of the entity signal: the names a query mentions (capitalised words such as "Lisbon" or "Caroline",
         * not "What" or "I") are matched by BM25 against the names each conversation message mentions, and that score,
         * times this weight, is added to the message's BM25 score over its text. So a message that names what the query
         * names ranks above one that only shares its other words. Archival entries, notes and blocks keep their scores
         * (the signal was measured on conversations). Default {@value LuceneMemorySearch#DEFAULT_NAME_WEIGHT}
         * (chosen on LoCoMo, see the module README); 0 turns it off; at most 10. Only the search changes: the index
         * keeps the names whatever the weight.
         */
        public Builder nameWeight(double weight) {
            if (!(weight >= 0 && weight <= 10)) {
                throw new IllegalArgumentException("name weight must be between 0 and 10, got " + weight);
            }
            this.nameWeight = weight;
            return this;
        }

        /**
         * The weight of the title signal: a document's title (the first line of an archival entry, note or file passage
         * when more lines follow and it is at most 300 characters) is indexed in a field of its own, and each query term
         * is also searched there, its BM25 score times this weight added to the document's. So a document whose title
         * says what the query asks ranks above one that mentions it in passing. Conversation messages and blocks have no
         * title. Default {@value LuceneMemorySearch#DEFAULT_TITLE_WEIGHT} (see the module README); 0 turns it off; at
         * most 10. Only the search changes: the index keeps the titles whatever the weight.
         */
        public Builder titleWeight(double weight) {
            if (!(weight >= 0 && weight <= 10)) {
                throw new IllegalArgumentException("title weight must be between 0 and 10, got " + weight);
            }
            this.titleWeight = weight;
            return this;
        }

        /**
         * How many earlier messages of its session are embedded with each conversation message (contextual chunking):
         * a reply's vector then carries what it replies to. Hits still show the message alone, and BM25 sees the
         * {@link #conversationContext} neighbours whatever this is. The cost is at ingest (longer texts to embed), none
         * at search. Default {@value LuceneMemorySearch#DEFAULT_EMBEDDED_CONTEXT}; at most 10. Changing it rebuilds
         * an existing index (every message is embedded again).
         */
        public Builder embeddedContext(int before) {
            if (before < 0 || before > 10) {
                throw new IllegalArgumentException("embedded context must be between 0 and 10 messages, got " + before);
            }
            this.embeddedBefore = before;
            return this;
        }

        /**
         * Whether a weighted hybrid search reads, for each candidate only one retriever found, the other retriever's
         * score from the index (its BM25 score, or its vector's similarity to the query's), and normalises each
         * retriever's scores over all candidates, instead of counting a document missing from one list as scoring
         * nothing there. Costs a few microseconds per candidate. Default on since issue 35's session 16 (chosen on folds
         * with {@link dev.engram.memory.Fusion#defaults()}'s weights, which go with it: see the module README); off
         * gives the fusion of before, whose weights were 0.4 / 0.6 and 0.6 / 0.4.
         */
        public Builder completeFusionScores(boolean complete) {
            this.completeScores = complete;
            return this;
        }

        /**
         * Vector pseudo-relevance feedback for weighted hybrid searches: the query's vector is moved toward the mean of
         * the stored vectors of the first pass's best {@code docs} hits, by {@code weight}, and the vector search runs
         * again with it (no second embedding; one more k-NN search). Default off ({@code docs} 0); {@code docs} at most
         * 100, {@code weight} between 0 and 10.
         */
        public Builder vectorFeedback(int docs, double weight) {
            if (docs < 0 || docs > 100) {
                throw new IllegalArgumentException("vector feedback documents must be between 0 and 100, got " + docs);
            }
            if (!(weight >= 0 && weight <= 10)) {
                throw new IllegalArgumentException("vector feedback weight must be between 0 and 10, got " + weight);
            }
            this.feedbackDocs = docs;
            this.feedbackWeight = weight;
            return this;
        }

        /**
         * RM3 query expansion for BM25 (pseudo-relevance feedback): the terms of the first BM25 pass's best {@code docs}
         * hits, weighted by how much of each hit they make up and by the hit's score, are mixed with the query's own terms
         * ({@code weight} theirs, {@code 1 - weight} the query's), and the best {@code terms} of them search again (one
         * more BM25 search; no embedding). Default off ({@code docs} 0); {@code docs} at most 100, {@code terms} between 1
         * and 100, {@code weight} between 0 and 1.
         */
        public Builder lexicalFeedback(int docs, int terms, double weight) {
            if (docs < 0 || docs > 100) {
                throw new IllegalArgumentException("lexical feedback documents must be between 0 and 100, got " + docs);
            }
            if (terms < 1 || terms > 100) {
                throw new IllegalArgumentException("lexical feedback terms must be between 1 and 100, got " + terms);
            }
            if (!(weight >= 0 && weight <= 1)) {
                throw new IllegalArgumentException("lexical feedback weight must be between 0 and 1, got " + weight);
            }
            this.lexicalDocs = docs;
            this.lexicalTerms = terms;
            this.lexicalWeight = weight;
            return this;
        }

        /**
         * How many segments of about one size the index keeps before merging them (Lucene's tiered merge policy, default
         * {@value LuceneMemorySearch#DEFAULT_SEGMENTS_PER_TIER}, between 2 and 50): fewer segments cost each search fewer
         * per-segment lookups, at the price of more merging while the index grows.
         */
        public Builder segmentsPerTier(double segments) {
            if (!(segments >= 2 && segments <= 50)) {
                throw new IllegalArgumentException("segments per tier must be between 2 and 50, got " + segments);
            }
            this.segmentsPerTier = segments;
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
         * The largest scope a vector search may score exactly instead of walking the HNSW graph: exact (recall 1)
         * and, for a small scope in a large index, faster, since the graph walk would visit many documents outside
         * the scope. Below this limit the search still walks the graph where that costs less: a scope larger than the
         * graph's visits (about 4,000 documents at the default 100 candidates) that is most of its index. Default
         * 20,000; 0 always walks the graph.
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

        /**
         * How many threads write a large batch of changes to the index at once (1 to 64): each builds the HNSW graph of
         * its own in-memory segment, which is most of the cost of indexing a document, so a bulk load (a rebuild, a long
         * backlog, an import) uses that many cores. Batches under 512 documents are written by one thread whatever this
         * says. Default: the available processors, at most 4.
         */
        public Builder indexingThreads(int threads) {
            if (threads < 1 || threads > 64) {
                throw new IllegalArgumentException("indexing threads must be between 1 and 64, got " + threads);
            }
            this.indexingThreads = threads;
            return this;
        }

        static int defaultIndexingThreads() {
            return Math.min(4, Runtime.getRuntime().availableProcessors());
        }

        static int defaultIndexingBufferMb() {
            return (int) Math.clamp(Runtime.getRuntime().maxMemory() / 8 / (1024 * 1024), 64, 1024);
        }

        public LuceneMemorySearch build() {
            return new LuceneMemorySearch(this);
        }
    }
}
