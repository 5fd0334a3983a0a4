package dev.engram.memory;

import java.nio.file.Path;

/** The conformance suite against the in-memory reference implementation. */
class InMemoryMemoryStoreConformanceTest extends MemoryStoreConformance {
    @Override
    protected MemoryStore open(Path dir) {
        return MemoryStore.inMemory();
    }
}
