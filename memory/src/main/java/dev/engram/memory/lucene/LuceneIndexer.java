package dev.engram.memory.lucene;

import dev.engram.memory.ChangeEvent;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemorySearch.ProgressListener;
import dev.engram.memory.MemoryStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.store.Directory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the store's change log into the Lucene index: the one writer thread, a background round
 * every interval, catch-up on behalf of searches, batching with embedding overlapped, commits that
 * record the applied sequence, and rebuilds when the index was built with another embedder or format
 * or is ahead of the store.
 */
final class LuceneIndexer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LuceneIndexer.class);
    /** How often a long catch-up commits its progress (each commit also ends a segment). */
    static final Duration COMMIT_INTERVAL = Duration.ofMinutes(5);

    private final MemoryStore store;
    private final EmbedderWatch watch;
    private final Embedder embedder;
    private final LuceneDocuments documents;
    /** Recent embeddings by text: a message's document is written again when later messages join its text, its vector is not. */
    private final IndexBatch.Vectors vectors;
    private final int batchEvents;
    private final Directory directory;
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final ReentrantLock indexLock = new ReentrantLock();
    /**
     * The one thread that writes the index: periodic catch-up, catch-up on behalf of searches and
     * {@link #catchUpTo}, and reindex. Callers wait for it but never run Lucene writes on their own
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
    /** How many threads write a large batch (the writer thread waits for them); 1: the writer thread alone. */
    private final int writeThreads;
    /** The threads that write a large batch's slices, when {@link #writeThreads} is more than 1. */
    private final java.util.concurrent.ExecutorService writeHelpers;
    private volatile long appliedSeq;
    /**
     * The last change searches can see: {@link #appliedSeq} once the searcher is refreshed. A search
     * compares with this one, never with {@code appliedSeq}, which runs ahead of it while a batch is
     * written, committed and refreshed.
     */
    private volatile long visibleSeq;
    /** The format of the index found at open when it was older and had to be started anew. */
    private final Optional<String> oldFormat;
    private volatile boolean closed;
    /** Why the index is in memory instead of its directory, when it is. */
    private final Optional<String> problem;

    LuceneIndexer(MemoryStore store, EmbedderWatch watch, LuceneDocuments documents, Analyzer analyzer, Path path,
            int batchEvents, int indexingBufferMb, int graphMaxConn, int graphBeamWidth, double segmentsPerTier,
            Duration backgroundInterval,
            int writeThreads) {
        this.store = store;
        this.writeThreads = writeThreads;
        this.writeHelpers = writeThreads <= 1 ? null : java.util.concurrent.Executors.newFixedThreadPool(writeThreads,
                Thread.ofPlatform().daemon().name("engram-index-write-", 1).factory());
        this.watch = watch;
        this.embedder = watch.embedder();
        this.documents = documents;
        this.vectors = new IndexBatch.Vectors(watch, 1024);
        this.batchEvents = batchEvents;
        IndexFiles.Settings settings = new IndexFiles.Settings(analyzer, indexingBufferMb, graphMaxConn, graphBeamWidth,
                segmentsPerTier, IndexCommit.format(documents.layout()));
        IndexFiles.Opened opened;
        Path usedPath = path;
        String problem = null;
        try {
            opened = IndexFiles.open(path, settings);
        } catch (org.apache.lucene.store.LockObtainFailedException e) {
            abandon();
            throw new MemoryException("The search index in " + path + " is in use by another process"
                    + IndexOwner.read(path).map(o -> " (" + o + ")").orElse("") + "; stop that process, or open this one with "
                    + "another home or index directory.", e);
        } catch (IOException | RuntimeException e) {
            if (path == null) {
                abandon();
                throw new MemoryException("Cannot open the search index: " + e.getMessage(), e);
            }
            // The index is derived from the store: a corrupt or unreadable one is set aside and built anew; where even
            // that fails, search runs on an in-memory index, and the store and its writes are untouched either way.
            String why = e.getClass().getSimpleName() + ": " + e.getMessage();
            opened = null;
            Optional<Path> aside = IndexFiles.moveAside(path);
            if (aside.isPresent()) {
                try {
                    opened = IndexFiles.open(path, settings);
                    LOG.warn("The search index in {} could not be opened ({}); it was moved to {} and is rebuilt from the "
                            + "memory store", path, why, aside.get());
                } catch (IOException | RuntimeException again) {
                    why += "; a new index there failed too: " + again.getMessage();
                }
            }
            if (opened == null) {
                LOG.warn("The search index in {} cannot be used ({}); search uses an in-memory index rebuilt from the memory "
                        + "store instead", path, why);
                try {
                    opened = IndexFiles.open(null, settings);
                } catch (IOException inMemory) {
                    abandon();
                    throw new MemoryException("Cannot open the search index in " + path + " (" + why + ") nor one in memory: "
                            + inMemory.getMessage(), inMemory);
                }
                usedPath = null;
                problem = "The search index in " + path + " cannot be used (" + why + "): search uses an in-memory index "
                        + "rebuilt from the memory store at each start; fix or remove the directory and restart.";
            }
        }
        this.directory = opened.directory();
        this.writer = opened.writer();
        this.searchers = opened.searchers();
        this.oldFormat = opened.oldFormat();
        this.problem = Optional.ofNullable(problem);
        this.ownerFile = usedPath == null ? null : IndexOwner.write(usedPath);
        Map<String, String> data = new HashMap<>();
        writer.getLiveCommitData().forEach(e -> data.put(e.getKey(), e.getValue()));
        this.storeId = store.id();
        this.appliedSeq = Long.parseLong(data.getOrDefault(IndexCommit.SEQ_DATA, "0"));
        this.visibleSeq = appliedSeq;
        this.lastChange = data.getOrDefault(IndexCommit.CHANGE_DATA, "");
        long withoutVectors = Long.parseLong(data.getOrDefault(IndexCommit.WITHOUT_VECTORS_DATA, "0"));
        Optional<IndexCommit.Rebuild> rebuild = IndexCommit.check(data, oldFormat, embedder.id(), store, storeId);
        if (rebuild.isEmpty() && withoutVectors > 0) {
            if (watch.works()) {
                rebuild = Optional.of(new IndexCommit.Rebuild(withoutVectors + " documents were indexed while the embedding "
                        + "model was unavailable, and it works now", false));
            } else {
                watch.withoutVectors(withoutVectors);
            }
        }
        rebuild.ifPresent(r -> {
            if (r.alarming()) {
                LOG.warn("Rebuilding the search index: {}", r.why());
            } else {
                LOG.info("Rebuilding the search index: {}", r.why());
            }
            reindex((d, t) -> { });
        });
        if (!backgroundInterval.isZero()) {
            long every = backgroundInterval.toMillis();
            writerThread.scheduleWithFixedDelay(this::followLog, every, every, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    /** Why the index is not where it was configured, if it is not. */
    Optional<String> problem() {
        return problem;
    }

    private final Path ownerFile;
    private final String storeId;
    /** The fingerprint of the change at {@link #appliedSeq}, recorded with each commit. */
    private volatile String lastChange;

    /** Releases what a failed open took: the threads. */
    private void abandon() {
        writerThread.close();
        indexer.close();
        if (writeHelpers != null) {
            writeHelpers.close();
        }
    }

    /** Acquires a searcher over the latest applied state; release it with {@link #release}. */
    IndexSearcher acquire() throws IOException {
        return searchers.acquire();
    }

    void release(IndexSearcher searcher) throws IOException {
        searchers.release(searcher);
    }

    long indexedSeq() {
        return appliedSeq;
    }

    /** The last change searches can see now, without catching up. */
    long visibleSeq() {
        return Math.max(0, visibleSeq);
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
        } catch (dev.engram.memory.StorageUnavailableException e) {
            if (!closed) { // every interval while the database is away: one line, no trace
                LOG.warn("Background indexing waits for the store: {}", e.getMessage());
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

    /**
     * Applies the change log up to at least {@code seq}. The common case, nothing new, returns at once
     * without a hand-off, so concurrent searches do not queue here.
     */
    long catchUpTo(long seq) {
        checkOpen();
        if (seq <= visibleSeq) {
            return visibleSeq;
        }
        onWriterThread(() -> catchUp((d, t) -> { }));
        return visibleSeq;
    }

    /** How many pending changes a search looks through to see whether any is in its scope. */
    private static final int PENDING_LOOKAHEAD = 1_000;

    /**
     * Applies the change log up to {@code seq} when a pending change belongs to the request's scope (its
     * user's notes, its agent's memory, an archive it covers, or a folder whose passages it covers); otherwise the search need not wait for other scopes'
     * changes, which the background indexer applies. With more pending changes than it looks
     * through, it waits as {@link #catchUpTo} does.
     */
    long catchUpFor(dev.engram.memory.SearchRequest request, long seq) {
        checkOpen();
        long visible = visibleSeq;
        if (seq <= visible) {
            return visible;
        }
        dev.engram.memory.Scope scope = request.scope();
        List<ChangeEvent> pending = store.changes().since(visible, PENDING_LOOKAHEAD);
        // The scope's own changes, and those of the archives the search covers beside it.
        boolean mine = pending.size() == PENDING_LOOKAHEAD || pending.stream().anyMatch(e -> e.userId().equals(scope.userId())
                && e.agentId().map(a -> a.equals(scope.agentId()) || request.folders().contains(a)
                        || request.archives().contains(a)).orElse(true));
        return mine ? catchUpTo(seq) : visible;
    }

    void reindex(ProgressListener progress) {
        Objects.requireNonNull(progress, "progress");
        onWriterThread(() -> {
            try {
                writer.deleteAll();
                watch.withoutVectors(0);
                appliedSeq = 0;
                visibleSeq = -1; // searches wait for the rebuild; the refresh after it shows the new state
                lastChange = "";
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
            refreshIfBehind();
            return;
        }
        long start = appliedSeq;
        try {
            long lastCommit = System.nanoTime();
            java.util.concurrent.CompletableFuture<IndexBatch> next = prepareAsync(appliedSeq);
            while (true) {
                IndexBatch batch = join(next);
                if (batch.events().isEmpty() || closed) {
                    break; // on close: what is applied is committed below, the rest is caught up at the next open
                }
                next = prepareAsync(batch.lastSeq());
                batch.writeTo(writer, writeHelpers, writeThreads);
                appliedSeq = batch.lastSeq();
                lastChange = IndexCommit.fingerprint(batch.events().getLast());
                progress.progress(appliedSeq - start, Math.max(target, appliedSeq) - start);
                // A long catch-up commits now and then, so that a crash loses at most that much work; each
                // commit also ends a segment, so not more often than COMMIT_INTERVAL.
                if (System.nanoTime() - lastCommit >= COMMIT_INTERVAL.toNanos()) {
                    commit();
                    lastCommit = System.nanoTime();
                }
            }
            commit();
            refreshIfBehind();
        } catch (IOException e) {
            throw new UncheckedIOException("updating the search index failed", e);
        }
    }

    /** Makes what is applied visible to searches. Caller holds {@link #indexLock}. */
    private void refreshIfBehind() {
        if (visibleSeq == appliedSeq) {
            return;
        }
        long applied = appliedSeq;
        try {
            searchers.maybeRefreshBlocking();
        } catch (IOException e) {
            throw new UncheckedIOException("refreshing the search index failed", e);
        }
        visibleSeq = applied;
    }

    private java.util.concurrent.CompletableFuture<IndexBatch> prepareAsync(long afterSeq) {
        return java.util.concurrent.CompletableFuture.supplyAsync(
                () -> IndexBatch.prepare(store, documents, vectors, afterSeq, batchEvents), indexer);
    }

    static <T> T join(java.util.concurrent.CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    private void commit() throws IOException {
        writer.setLiveCommitData(IndexCommit.data(appliedSeq, embedder.id(), IndexCommit.format(documents.layout()), storeId, lastChange,
                watch.withoutVectors()).entrySet());
        writer.commit();
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
            if (writeHelpers != null) {
                writeHelpers.close();
            }
            searchers.close();
            writer.close();
            if (ownerFile != null) {
                Files.deleteIfExists(ownerFile);
            }
            directory.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing the search index failed", e);
        } finally {
            indexLock.unlock();
        }
    }
}
