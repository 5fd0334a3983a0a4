package dev.engram.cli;

import dev.engram.memory.MemorySearch;
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

    LazySearch(Supplier<MemorySearch> opener) {
        this.opener = opener;
    }

    @Override
    public List<SearchHit> search(SearchRequest request) {
        return opener.get().search(request);
    }

    @Override
    public long awaitIndexed() {
        return opener.get().awaitIndexed();
    }

    @Override
    public long indexedSeq() {
        return opener.get().indexedSeq();
    }

    @Override
    public void reindex(ProgressListener progress) {
        opener.get().reindex(progress);
    }

    /** Does nothing: the engine closes the search it opened. */
    @Override
    public void close() {
    }
}
