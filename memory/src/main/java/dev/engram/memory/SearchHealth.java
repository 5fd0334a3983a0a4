package dev.engram.memory;

import java.util.List;
import java.util.Objects;

/**
 * Whether a {@link MemorySearch} works as configured. Degraded means it still answers, in a lesser way
 * that each reason names (BM25 alone while the embedding model is unavailable, an in-memory index
 * while the index directory cannot be used), and says what to do about it.
 *
 * @param reasons why search is degraded, each a sentence; empty when it is not
 */
public record SearchHealth(List<String> reasons) {
    public SearchHealth {
        reasons = List.copyOf(Objects.requireNonNull(reasons, "reasons"));
    }

    /** Working as configured. */
    public static SearchHealth ok() {
        return new SearchHealth(List.of());
    }

    /** Whether search answers in a lesser way than configured. */
    public boolean degraded() {
        return !reasons.isEmpty();
    }
}
