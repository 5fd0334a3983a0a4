package dev.engram.cli;

import dev.engram.memory.MemorySearch;
import dev.engram.memory.SearchHealth;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.util.List;
import java.util.function.Supplier;

/**
 * A {@link MemorySearch} opened on first use, so that commands which build the agent runtime only to
 * manage agents (delete, export) do not load the embedding model and the index.
 */
final class LazySearch implements MemorySearch {
    private final Supplier<MemorySearch> opener;
    private volatile MemorySearch opened;

    LazySearch(Supplier<MemorySearch> opener) {
        this.opener = opener;
    }

    private MemorySearch open() {
        MemorySearch s = opened;
        if (s == null) {
            s = opener.get();
            opened = s;
        }
        return s;
    }

    @Override
    public List<SearchHit> search(SearchRequest request) {
        return open().search(request);
    }

    @Override
    public long awaitIndexed() {
        return open().awaitIndexed();
    }

    @Override
    public long indexedSeq() {
        return open().indexedSeq();
    }

    @Override
    public void reindex(ProgressListener progress) {
        open().reindex(progress);
    }

    /** The opened search's health; healthy while nothing has searched yet (opening it here would load the model). */
    @Override
    public SearchHealth health() {
        MemorySearch s = opened;
        return s == null ? SearchHealth.ok() : s.health();
    }

    /** Does nothing: the engine closes the search it opened. */
    @Override
    public void close() {
    }
}
