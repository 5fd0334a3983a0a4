package dev.engram.memory;

/** Which retrievers a search runs. */
public enum SearchMode {
    /** Lexical: BM25 over the analysed text. */
    BM25,
    /** Semantic: k-nearest neighbours over the embeddings. */
    VECTOR,
    /** Both, fused. The default. */
    HYBRID
}
