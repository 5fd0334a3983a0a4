package dev.engram.memory;

import dev.engram.memory.lucene.LuceneMemorySearch;
import java.nio.file.Path;
import java.util.List;

/**
 * Hybrid search over a {@link MemoryStore}: BM25 and vector k-NN over an index derived from the
 * store's change log, filtered by scope (and domain, time, tags, roles), fused by reciprocal rank or
 * weighted scores.
 *
 * <p><b>Freshness.</b> A write made through the store is searchable as soon as its call returns:
 * every search first applies the change-log events the index has not applied yet (usually none,
 * because a background indexer follows the log), as far as {@link ChangeLog#knownLastSeq()} knows
 * them. A write by another process sharing the store's storage is searchable once the background
 * indexer has seen it, or at once after {@link #awaitIndexed()}, which reads the log itself. Inside a
 * {@linkplain MemoryStore#inTransaction unit of work} (on its thread) neither waits for the index: the
 * search sees the index as it stands, and the unit's own writes once it has committed.
 *
 * <p><b>Durability.</b> The index records the last applied change-log sequence in its commits; after
 * a crash it catches up from the store, and it never holds what the store does not (it only applies
 * committed events: never one of a unit of work that rolled back). It can always be rebuilt with {@link #reindex}.
 */
public interface MemorySearch extends AutoCloseable {
    /** Searches; catches up with the store first. */
    List<SearchHit> search(SearchRequest request);

    /**
     * Applies every change-log event written so far, by this process or another (it asks the store's
     * {@link ChangeLog#lastSeq()}); returns the sequence number now indexed.
     */
    long awaitIndexed();

    /** The last change-log sequence number applied to the index. */
    long indexedSeq();

    /**
     * Whether search works as configured, and if not, how it still answers and why: for instance BM25
     * alone while the embedding model is unavailable. A search that cannot degrade reports healthy.
     */
    default SearchHealth health() {
        return SearchHealth.ok();
    }

    /** Drops the index and rebuilds it from the store's change log, reporting progress. */
    void reindex(ProgressListener progress);

    default void reindex() {
        reindex((done, total) -> { });
    }

    @Override
    void close();

    /** Progress of a long operation. */
    @FunctionalInterface
    interface ProgressListener {
        void progress(long done, long total);
    }

    /** A Lucene index in {@code directory} over {@code store}, embedding with {@code embedder}, with default options. */
    static MemorySearch lucene(MemoryStore store, Embedder embedder, Path directory) {
        return LuceneMemorySearch.builder(store, embedder).directory(directory).build();
    }

    /** A Lucene index held in memory (rebuilt from the store when opened). */
    static MemorySearch luceneInMemory(MemoryStore store, Embedder embedder) {
        return LuceneMemorySearch.builder(store, embedder).build();
    }
}
