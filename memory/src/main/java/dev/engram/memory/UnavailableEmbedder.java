package dev.engram.memory;

import java.util.List;

/** Stands in for an embedding model that could not be opened: same id and size, every call fails saying why. */
record UnavailableEmbedder(String id, int dimensions, String reason) implements Embedder {
    @Override
    public List<float[]> embed(List<String> texts) {
        throw new MemoryException("The embedding model " + id + " is unavailable: " + reason);
    }
}
