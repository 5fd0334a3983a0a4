package dev.engram.bench;

import dev.engram.memory.Embedder;
import java.util.List;
import java.util.function.Function;

/**
 * An index's embedder whose documents come from {@code documents} and whose queries from {@code queries}: replayed
 * vectors (a search timed without the query's embedding), the real model (with it), or the model under another query
 * prefix over cached passage vectors. Closes neither: their owners do.
 */
record SplitEmbedder(Embedder documents, Function<String, float[]> queries) implements Embedder {
    @Override
    public String id() {
        return documents.id();
    }

    @Override
    public int dimensions() {
        return documents.dimensions();
    }

    @Override
    public List<float[]> embed(List<String> texts) {
        return documents.embed(texts);
    }

    @Override
    public float[] embedQuery(String query) {
        return queries.apply(query);
    }

    @Override
    public void close() {
        // the documents' and the queries' embedders are closed by whoever opened them
    }
}
