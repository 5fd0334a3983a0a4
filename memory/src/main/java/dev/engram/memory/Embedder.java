package dev.engram.memory;

import dev.engram.memory.onnx.OnnxEmbedder;
import java.util.List;

/**
 * Turns text into vectors for semantic search. Implementations must be thread-safe and return
 * L2-normalised vectors of {@link #dimensions()} components.
 *
 * <p>The default, {@link #onnx(EmbeddingModel)}, runs a small sentence-embedding model shipped inside
 * a Maven artifact, fully offline.
 */
public interface Embedder extends AutoCloseable {
    /** Identifies the model and its settings; an index built with another id must be rebuilt. */
    String id();

    int dimensions();

    /** Embeds documents in one batch, in order. */
    List<float[]> embed(List<String> texts);

    /** Embeds a search query; models with a query instruction add it here. */
    default float[] embedQuery(String query) {
        return embed(List.of(query)).get(0);
    }

    /** Releases native resources. */
    @Override
    default void close() {
    }

    /** The ONNX embedder for a bundled model, with as many threads as there are processors. */
    static Embedder onnx(EmbeddingModel model) {
        return OnnxEmbedder.builder(model).build();
    }

    /**
     * A stand-in for a model that could not be opened (a missing or corrupt model file, a native library
     * that does not load): it has the model's {@code id} and {@code dimensions}, so that an index built
     * with the model is kept, and every call fails with a {@link MemoryException} that gives
     * {@code reason}. A Lucene search over it answers with BM25 alone and says so in its
     * {@link MemorySearch#health() health}.
     */
    static Embedder unavailable(String id, int dimensions, String reason) {
        return new UnavailableEmbedder(id, dimensions, reason);
    }

    /** The default model ({@link EmbeddingModel#defaultModel()}: bge-small-en-v1.5, quantised). */
    static Embedder onnxDefault() {
        return onnx(EmbeddingModel.defaultModel());
    }
}
