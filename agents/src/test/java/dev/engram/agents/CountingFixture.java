package dev.engram.agents;

import dev.engram.framework.AiTool;
import dev.engram.framework.model.ChatModel;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.SqliteOptions;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.spi.Rows;
import dev.engram.memory.sqlite.SqliteBackend;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An agent with its tools over a store that counts what a step costs it: a SQLite store in a test's directory whose
 * backend counts its read units and write transactions (plain writes and units of work), a Lucene index over it with the
 * real MiniLM model (caught up when a search asks, not in the background), and a runtime over both. Closes them in
 * reverse order.
 */
final class CountingFixture implements AutoCloseable {
    /** Read units the store has run. */
    final AtomicInteger reads = new AtomicInteger();
    /** Write transactions the store has run. */
    final AtomicInteger writes = new AtomicInteger();
    /** The SQLite backend under the counting one (for {@code SqliteCounts}). */
    final SqliteBackend sqlite;
    final MemoryStore store;
    final MemorySearch search;
    /** The runtime {@link #open} built. */
    AgentRuntime runtime;

    CountingFixture(Path dir) {
        sqlite = SqliteBackend.open(SqliteOptions.builder(dir.resolve("memory.db")).build());
        store = MemoryStore.over(new Counting());
        search = LuceneMemorySearch.builder(store, AgentFixture.embedder()).directory(dir.resolve("index"))
                .backgroundInterval(Duration.ZERO).build();
    }

    /** Builds the runtime over the store and the index, with {@code model} under {@code spec} and {@code tools}. */
    AgentRuntime open(String spec, ChatModel model, AiTool<?, ?>... tools) {
        AgentRuntime.Builder b = AgentRuntime.builder(store, search).model(spec, model);
        for (AiTool<?, ?> tool : tools) {
            b.tool(tool);
        }
        runtime = b.build();
        return runtime;
    }

    @Override
    public void close() {
        if (runtime != null) {
            runtime.close();
        }
        search.close();
        store.close();
    }

    /** SQLite, counting its read units and write transactions. */
    private final class Counting implements MemoryBackend {
        @Override
        public <T> T write(Function<Rows, T> work) {
            writes.incrementAndGet();
            return sqlite.write(work);
        }

        @Override
        public <T> T writeUnit(Function<Rows, T> work) {
            writes.incrementAndGet();
            return sqlite.writeUnit(work);
        }

        @Override
        public <T> T read(Function<Rows, T> work) {
            reads.incrementAndGet();
            return sqlite.read(work);
        }

        @Override
        public boolean savepoints() {
            return sqlite.savepoints();
        }

        @Override
        public void close() {
            sqlite.close();
        }
    }
}
