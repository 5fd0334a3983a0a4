package dev.engram.cli;

import dev.engram.agents.AgentRuntime;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Builds the built-in tools once, on another thread, while {@code engram serve} opens its store: their JSON schemas,
 * generated from their input records, are most of the cost of building a runtime (a quarter of the start), and the
 * framework keeps each record's schema once generated, so the server's own runtime, built a moment later, finds them
 * ready. Over a throwaway in-memory store and a search that is never asked; both are closed with it. Nothing here can
 * fail the start: a tool that cannot be built fails the server's own build, which reports it.
 */
final class ToolSchemaPrefetch {
    private ToolSchemaPrefetch() {
    }

    /** Starts building them on a daemon thread; the stage completes when done, failed or not. */
    static CompletableFuture<Void> start() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("engram-tool-schemas").start(() -> {
            try (MemoryStore scratch = MemoryStore.inMemory(); NoSearch search = new NoSearch()) {
                AgentRuntime.builder(scratch, search).build().close(); // built: the tools' schemas are in the cache now
            } catch (RuntimeException e) {
                // the server's own runtime builds the same tools, and reports what fails there
            } finally {
                done.complete(null);
            }
        });
        return done;
    }

    /** A search over nothing: building a runtime asks it nothing. */
    private static final class NoSearch implements MemorySearch {
        @Override
        public List<SearchHit> search(SearchRequest request) {
            return List.of();
        }

        @Override
        public long awaitIndexed() {
            return 0;
        }

        @Override
        public long indexedSeq() {
            return 0;
        }

        @Override
        public void reindex(ProgressListener progress) {
        }

        @Override
        public void close() {
        }
    }
}
