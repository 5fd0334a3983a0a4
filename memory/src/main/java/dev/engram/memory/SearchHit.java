package dev.engram.memory;

import java.time.Instant;
import java.util.Optional;

/**
 * One result of a search.
 *
 * @param id        the item's id: archival or note id, message id as text, or block label
 * @param domain    where it lives
 * @param text      the indexed text
 * @param timestamp when the item was written (last updated)
 * @param score     the fused score (for single-retriever modes, that retriever's score)
 * @param bm25      its rank and score in the BM25 list, if it was in it
 * @param vector    its rank and score in the vector list, if it was in it
 */
public record SearchHit(String id, SearchDomain domain, String text, Instant timestamp, double score,
        Optional<Component> bm25, Optional<Component> vector) {

    /**
     * A hit's place in one retriever's list.
     *
     * @param rank  1-based
     * @param score the retriever's raw score (BM25, or the vector similarity in [0, 1])
     */
    public record Component(int rank, double score) {
    }
}
