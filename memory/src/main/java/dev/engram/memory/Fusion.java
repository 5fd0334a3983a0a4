package dev.engram.memory;

/**
 * How a hybrid search merges its BM25 and vector lists.
 *
 * @param kind         reciprocal rank fusion or weighted normalised scores
 * @param rrfK         RRF's constant: a hit at rank r in a list adds {@code 1 / (rrfK + r)}
 * @param ftsWeight    weight of the min-max normalised BM25 score (weighted fusion)
 * @param vectorWeight weight of the min-max normalised vector score (weighted fusion)
 */
public record Fusion(Kind kind, int rrfK, double ftsWeight, double vectorWeight) {
    /** The fusion methods. */
    public enum Kind {
        RRF, WEIGHTED
    }

    /** RRF's customary constant. */
    public static final int DEFAULT_RRF_K = 60;

    public Fusion {
        if (kind == null) {
            throw new IllegalArgumentException("fusion kind must not be null");
        }
        if (rrfK < 1) {
            throw new IllegalArgumentException("rrf k must be at least 1, got " + rrfK);
        }
        if (ftsWeight < 0 || vectorWeight < 0 || Double.isNaN(ftsWeight) || Double.isNaN(vectorWeight)
                || ftsWeight + vectorWeight == 0) {
            throw new IllegalArgumentException("fusion weights must be non-negative and not both zero, got fts_weight="
                    + ftsWeight + ", vector_weight=" + vectorWeight);
        }
    }

    /** Reciprocal rank fusion with k = 60. */
    public static Fusion rrf() {
        return rrf(DEFAULT_RRF_K);
    }

    public static Fusion rrf(int k) {
        return new Fusion(Kind.RRF, k, 1, 1);
    }

    /** Weighted normalised scores. */
    public static Fusion weighted(double ftsWeight, double vectorWeight) {
        return new Fusion(Kind.WEIGHTED, DEFAULT_RRF_K, ftsWeight, vectorWeight);
    }
}
