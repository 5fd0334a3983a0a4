package dev.engram.memory;

/**
 * How a hybrid search merges its BM25 and vector lists: by reciprocal rank, or by min-max normalised
 * scores, weighted. Weighted fusion may weigh conversation messages differently from the other
 * domains (archival entries, notes, blocks): BM25 sees a message with its neighbouring turns and its
 * date, which makes keyword evidence stronger there than in a document on its own.
 *
 * @param kind                     reciprocal rank fusion or weighted normalised scores
 * @param rrfK                     RRF's constant: a hit at rank r in a list adds {@code 1 / (rrfK + r)}
 * @param ftsWeight                weight of the normalised BM25 score of a hit that is not a conversation message
 * @param vectorWeight             weight of the normalised vector score of a hit that is not a conversation message
 * @param conversationFtsWeight    weight of the normalised BM25 score of a conversation message
 * @param conversationVectorWeight weight of the normalised vector score of a conversation message
 */
public record Fusion(Kind kind, int rrfK, double ftsWeight, double vectorWeight, double conversationFtsWeight,
        double conversationVectorWeight) {
    /** The fusion methods. */
    public enum Kind {
        RRF, WEIGHTED
    }

    /** RRF's customary constant. */
    public static final int DEFAULT_RRF_K = 60;

    /** The {@linkplain #spec() spec} of {@link #defaults()}. */
    public static final String DEFAULT_SPEC = "weighted:0.3,0.7;conversations:0.5,0.5";

    public Fusion {
        if (kind == null) {
            throw new IllegalArgumentException("fusion kind must not be null");
        }
        if (rrfK < 1) {
            throw new IllegalArgumentException("rrf k must be at least 1, got " + rrfK);
        }
        checkWeights(ftsWeight, vectorWeight);
        checkWeights(conversationFtsWeight, conversationVectorWeight);
    }

    private static void checkWeights(double fts, double vector) {
        if (fts < 0 || vector < 0 || Double.isNaN(fts) || Double.isNaN(vector) || fts + vector == 0) {
            throw new IllegalArgumentException("fusion weights must be non-negative and not both zero, got fts_weight="
                    + fts + ", vector_weight=" + vector);
        }
    }

    /**
     * The default: weighted min-max normalised scores, 0.3 BM25 and 0.7 vector, and 0.5 BM25 and 0.5 vector for
     * conversation messages, chosen with the Lucene index's completed scores (each candidate scored by both retrievers)
     * on SciFact (documents) and LoCoMo (conversations) folds, by the procedure in the memory module's README; unlike
     * RRF it keeps how far apart the scores are, so a retriever that is sure of its first hits is heard.
     */
    public static Fusion defaults() {
        return parse(DEFAULT_SPEC);
    }

    /** Reciprocal rank fusion with k = 60. */
    public static Fusion rrf() {
        return rrf(DEFAULT_RRF_K);
    }

    public static Fusion rrf(int k) {
        return new Fusion(Kind.RRF, k, 1, 1, 1, 1);
    }

    /** Weighted normalised scores, the same weights for every domain. */
    public static Fusion weighted(double ftsWeight, double vectorWeight) {
        return new Fusion(Kind.WEIGHTED, DEFAULT_RRF_K, ftsWeight, vectorWeight, ftsWeight, vectorWeight);
    }

    /** This weighted fusion with other weights for conversation messages. */
    public Fusion forConversations(double ftsWeight, double vectorWeight) {
        if (kind != Kind.WEIGHTED) {
            throw new IllegalArgumentException("only weighted fusion has per-domain weights");
        }
        return new Fusion(kind, rrfK, this.ftsWeight, this.vectorWeight, ftsWeight, vectorWeight);
    }

    /** The BM25 weight of a hit in {@code domain}. */
    public double ftsWeight(SearchDomain domain) {
        return domain == SearchDomain.CONVERSATIONS ? conversationFtsWeight : ftsWeight;
    }

    /** The vector weight of a hit in {@code domain}. */
    public double vectorWeight(SearchDomain domain) {
        return domain == SearchDomain.CONVERSATIONS ? conversationVectorWeight : vectorWeight;
    }

    /**
     * A fusion from its spec: {@code rrf}, {@code rrf:K}, {@code weighted:BM25,VECTOR} (e.g. {@code weighted:0.6,0.4}), or
     * that with conversation weights, {@code weighted:0.4,0.6;conversations:0.6,0.4}.
     *
     * @throws IllegalArgumentException naming the forms it takes
     */
    public static Fusion parse(String spec) {
        String s = spec == null ? "" : spec.strip().toLowerCase(java.util.Locale.ROOT).replace(" ", "");
        try {
            if (s.equals("rrf")) {
                return rrf();
            }
            if (s.startsWith("rrf:")) {
                return rrf(Integer.parseInt(s.substring(4)));
            }
            if (s.startsWith("weighted:")) {
                String[] parts = s.substring(9).split(";conversations:");
                double[] w = pair(parts[0]);
                Fusion f = weighted(w[0], w[1]);
                if (parts.length == 2) {
                    double[] c = pair(parts[1]);
                    return f.forConversations(c[0], c[1]);
                }
                if (parts.length == 1 && !s.contains(";")) {
                    return f;
                }
            }
        } catch (NumberFormatException e) {
            // falls through to the explanation
        }
        throw new IllegalArgumentException("fusion '" + spec + "' is not one of rrf, rrf:K, weighted:BM25,VECTOR or "
                + "weighted:BM25,VECTOR;conversations:BM25,VECTOR (e.g. " + DEFAULT_SPEC + ")");
    }

    private static double[] pair(String text) {
        String[] w = text.split(",");
        if (w.length != 2) {
            throw new NumberFormatException("two weights");
        }
        return new double[] {Double.parseDouble(w[0]), Double.parseDouble(w[1])};
    }

    /** The spec {@link #parse} reads: {@code rrf:60}, {@code weighted:0.6,0.4}, or with {@code ;conversations:B,V}. */
    public String spec() {
        if (kind == Kind.RRF) {
            return "rrf:" + rrfK;
        }
        String base = "weighted:" + ftsWeight + "," + vectorWeight;
        return conversationFtsWeight == ftsWeight && conversationVectorWeight == vectorWeight ? base
                : base + ";conversations:" + conversationFtsWeight + "," + conversationVectorWeight;
    }
}
