package dev.engram.memory;

import java.nio.file.Path;

/** The conformance suite against the in-memory reference backend. */
class InMemoryBackendConformanceTest extends MemoryStoreConformance {
    @Override
    protected MemoryStore open(Path dir) {
        return MemoryStore.inMemory();
    }
}
