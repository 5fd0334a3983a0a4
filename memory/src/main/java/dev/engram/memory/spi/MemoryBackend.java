package dev.engram.memory.spi;

import java.util.function.Function;

/**
 * Where a {@link dev.engram.memory.MemoryStore} keeps its rows: the one interface a storage backend
 * implements. Wrap an implementation with {@link dev.engram.memory.MemoryStore#over(MemoryBackend)}; the
 * store above it does everything else once, for every backend: argument checks, scope rules, limits,
 * versions and history, sharing, the block paging workflows, the change log's entries and the
 * {@code knownLastSeq} shortcut.
 *
 * <p>A backend promises three things:
 * <ol>
 *   <li><b>Atomic, serialised writes.</b> {@link #write} runs its work as one transaction: if the work
 *       throws, nothing it did is kept and the exception reaches the caller unchanged; if it returns,
 *       everything it did is durable. Writes do not interleave: the store reads, checks and then writes
 *       inside one {@code write}, and relies on nothing changing in between.</li>
 *       A {@linkplain dev.engram.memory.MemoryStore#inTransaction unit of work} is one such write, holding
 *       many store calls, so a write may last as long as its caller's work.</li>
 *   <li><b>Committed reads.</b> {@link #read} sees every write that returned before it started. Its
 *       change log ({@link Rows#changesSince}, {@link Rows#lastChangeSeq}) shows no event of a write still
 *       in progress, not even on the thread running that write: the store reads the log that way inside a
 *       unit of work, and derived indexes must never see an event that may still roll back.</li>
 *   <li><b>Plain rows.</b> {@link Rows} stores and returns exactly what it is given; it decides nothing.</li>
 * </ol>
 *
 * <p>Prove an implementation with {@code MemoryStoreConformance} from the engram-memory test-jar.
 */
public interface MemoryBackend extends AutoCloseable {
    /**
     * Runs {@code work} in one write transaction, serialised with every other write to the same
     * storage, and returns its result.
     *
     * @throws RuntimeException whatever {@code work} threw, after rolling back; or a
     *                          {@link dev.engram.memory.MemoryException} if the storage failed
     */
    <T> T write(Function<Rows, T> work);

    /**
     * Runs a {@linkplain dev.engram.memory.MemoryStore#inTransaction unit of work} as one write transaction: like
     * {@link #write}, but {@code work} runs its caller's own code, which may take locks or wait for other threads. A
     * backend that lets concurrent writes share a transaction (group commit) must therefore never make another write's
     * commit wait for this one's work. The default is {@link #write}.
     */
    default <T> T writeUnit(Function<Rows, T> work) {
        return write(work);
    }

    /**
     * Whether {@link Rows#savepoint} works inside {@link #writeUnit}: part of a unit of work can be undone alone
     * ({@link dev.engram.memory.MemoryStore#attempt}). The default is {@code false}.
     */
    default boolean savepoints() {
        return false;
    }

    /**
     * Runs read-only {@code work}; it may run while a write is in progress and must see every
     * committed write. The default runs it as a write.
     */
    default <T> T read(Function<Rows, T> work) {
        return write(work);
    }

    /** Releases connections and files. Called once, by the store's {@code close}. */
    @Override
    void close();
}
