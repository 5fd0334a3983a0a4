package dev.engram.memory;

import java.nio.file.Path;

/** The conformance suite against the embedded SQLite backend, each test on a fresh file. */
class SqliteBackendConformanceTest extends MemoryStoreConformance {
    @Override
    protected MemoryStore open(Path dir) {
        return MemoryStore.sqlite(dir.resolve("memory.db"));
    }
}
