package dev.engram.memory;

import java.nio.file.Path;

/**
 * Everything an agent remembers, behind one small SPI: core memory {@linkplain #blocks() blocks},
 * {@linkplain #archival() archival} entries, per-user {@linkplain #notes() notes}, the
 * {@linkplain #messages() conversation} (recall memory), per-scope {@linkplain #stats statistics},
 * and a {@linkplain #changes() change log} that derived indexes follow.
 *
 * <p>Every operation takes a {@link Scope} (notes: a user id) and none can reach outside it: an id
 * or label that exists only in another scope is "not found". Every write is atomic and, once the
 * call returns, durable; each appends one event per changed item to the change log.
 *
 * <p>Implement this interface for another backend and prove it with the conformance suite
 * ({@code MemoryStoreConformance} in the engram-memory test-jar). The embedded default is
 * {@link #sqlite(Path)}; {@link #inMemory()} is a reference implementation for tests.
 */
public interface MemoryStore extends AutoCloseable {
    /** Core memory blocks of each agent, with history and sharing. */
    BlockStore blocks();

    /** Archival memory of each agent. */
    ArchivalStore archival();

    /** Notes of each user. */
    NoteStore notes();

    /** Agent definitions, one per scope. */
    AgentStore agents();

    /** Conversation messages (recall memory) of each agent and user. */
    MessageStore messages();

    /** The change log, in commit order. */
    ChangeLog changes();

    /** Counts for the scope's prompt statistics. */
    MemoryStats stats(Scope scope);

    /** Releases connections and files; further calls fail. Idempotent. */
    @Override
    void close();

    /** The embedded store in a SQLite file (created if missing), with default options. */
    static MemoryStore sqlite(Path file) {
        return sqlite(SqliteOptions.builder(file).build());
    }

    /** The embedded store with explicit options. */
    static MemoryStore sqlite(SqliteOptions options) {
        return SqliteMemoryStore.open(options);
    }

    /** A store held in memory only: for tests and experiments, lost on close. Thread-safe. */
    static MemoryStore inMemory() {
        return new InMemoryMemoryStore(java.time.Clock.systemUTC());
    }
}
