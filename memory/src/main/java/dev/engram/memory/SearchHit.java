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
 * @param archive   the id of the {@linkplain Archive archive} it comes from, when it is a passage of one of the archives
 *                  the search covered ({@link SearchRequest#archives()}); empty for the searched scope's own memory
 */
public record SearchHit(String id, SearchDomain domain, String text, Instant timestamp, double score,
        Optional<Component> bm25, Optional<Component> vector, Optional<String> archive) {
    public SearchHit {
        java.util.Objects.requireNonNull(archive, "archive must not be null: Optional.empty() for the scope's own memory");
    }

    /** A hit in the searched scope's own memory. */
    public SearchHit(String id, SearchDomain domain, String text, Instant timestamp, double score,
            Optional<Component> bm25, Optional<Component> vector) {
        this(id, domain, text, timestamp, score, bm25, vector, Optional.empty());
    }

    /**
     * A hit's place in one retriever's list.
     *
     * @param rank  1-based
     * @param score the retriever's raw score (BM25, or the vector similarity in [0, 1])
     */
    public record Component(int rank, double score) {
    }
}
