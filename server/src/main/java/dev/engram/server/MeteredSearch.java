package dev.engram.server;

import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.SearchHealth;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.time.Duration;
import java.util.List;

/**
 * The caller's {@link MemorySearch} with each search timed into the server's {@link Metrics}: the runtime's tools and
 * the passage routes search through it. It also answers the index-lag gauge, but only once something has used the
 * index: a search opened lazily (as {@code engram serve} opens it, with the embedding model, on the first search) is
 * not opened by a scrape, and the gauge reads NaN until then.
 */
final class MeteredSearch implements MemorySearch {
    private final MemorySearch search;
    private final Metrics metrics;
    private volatile boolean used;

    MeteredSearch(MemorySearch search, Metrics metrics) {
        this.search = search;
        this.metrics = metrics;
    }

    @Override
    public List<SearchHit> search(SearchRequest request) {
        used = true;
        long start = System.nanoTime();
        boolean failed = true;
        try {
            List<SearchHit> hits = search.search(request);
            failed = false;
            return hits;
        } finally {
            metrics.search(Duration.ofNanos(System.nanoTime() - start), failed);
        }
    }

    @Override
    public long awaitIndexed() {
        used = true;
        return search.awaitIndexed();
    }

    @Override
    public long indexedSeq() {
        used = true;
        return search.indexedSeq();
    }

    @Override
    public SearchHealth health() {
        return search.health();
    }

    @Override
    public void reindex(ProgressListener progress) {
        used = true;
        search.reindex(progress);
    }

    /**
     * How many change-log events the index has not applied yet, as far as the store knows its log without asking its
     * database again ({@code ChangeLog.knownLastSeq}); NaN while nothing has used the index, or when it cannot answer.
     */
    double lag(MemoryStore store) {
        if (!used) {
            return Double.NaN;
        }
        try {
            return Math.max(0, store.changes().knownLastSeq() - search.indexedSeq());
        } catch (RuntimeException e) {
            return Double.NaN;
        }
    }

    /** Closes the caller's search (the runtime closes what it was given). */
    @Override
    public void close() {
        search.close();
    }
}
