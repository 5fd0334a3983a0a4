package dev.engram.agents;

import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.MigratedSqlite;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** A real SQLite store, a real Lucene index with the real MiniLM model, and a runtime over them. */
final class AgentFixture implements AutoCloseable {
    private static OnnxEmbedder embedder;

    static synchronized OnnxEmbedder embedder() {
        if (embedder == null) {
            embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(1).build();
        }
        return embedder;
    }

    final Path dir;
    MemoryStore store;
    MemorySearch search;
    AgentRuntime runtime;
    final List<AgentEvent> events = java.util.Collections.synchronizedList(new ArrayList<>());
    /** The store's clock: it stamps writes and says when schedules are due. */
    java.time.Clock clock = java.time.Clock.systemUTC();
    /** The store's largest text (notes, archival entries, messages, definitions). */
    dev.engram.memory.MemoryLimits limits = dev.engram.memory.MemoryLimits.defaults();

    AgentFixture(Path dir) {
        this.dir = dir;
    }

    /** Opens (or reopens) the store, index and runtime; {@code config} adds models and settings. */
    AgentFixture open(Consumer<AgentRuntime.Builder> config) {
        store = MemoryStore.over(dev.engram.memory.sqlite.SqliteBackend.open(
                dev.engram.memory.SqliteOptions.builder(MigratedSqlite.at(dir.resolve("memory.db"))).clock(clock).build()), clock, limits);
        search = LuceneMemorySearch.builder(store, embedder()).directory(dir.resolve("index"))
                .backgroundInterval(Duration.ZERO).build();
        AgentRuntime.Builder b = AgentRuntime.builder(store, search).listener(events::add)
                .modelResolver(spec -> {
                    throw new IllegalArgumentException("no model '" + spec + "' in this test");
                });
        config.accept(b);
        runtime = b.build();
        return this;
    }

    AgentFixture open(String spec, ScriptedChatModel model) {
        return open(b -> b.model(spec, model));
    }

    /** Closes the runtime, index and store, as a process exit would. */
    void reopenLater() {
        close();
    }

    List<ConversationMessage> messages(Scope scope) {
        return store.messages().list(scope, MessageQuery.all());
    }

    List<ConversationMessage> inContext(Scope scope) {
        return store.messages().list(scope, MessageQuery.inContext());
    }

    <T extends AgentEvent> List<T> events(Class<T> type) {
        synchronized (events) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    @Override
    public void close() {
        if (runtime != null) {
            runtime.close();
            search.close();
            store.close();
            runtime = null;
        }
    }

    static ScriptedChatModel script(String json) {
        return ScriptedChatModel.fromJson(json);
    }
}
