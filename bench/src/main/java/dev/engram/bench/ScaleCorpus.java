package dev.engram.bench;

import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * The passages and vectors of {@link ScaleSearch}: passage {@code i} is text {@code i % T} of {@code T} real texts,
 * tagged with its number, and its vector a perturbed, renormalised copy of that text's own real vector (made on demand,
 * never kept, so that ten million cost no memory). {@code T} is chosen prime to the number of scopes, so that a scope's
 * passages are distinct texts. Queries are replayed from their real vectors.
 */
record ScaleCorpus(List<String> texts, float[][] base, Map<String, float[]> queries) {
    /** The noise added to each dimension of a real vector before renormalising (as in {@code SearchSpeed}'s million). */
    private static final double NOISE = 0.02;

    /** The first texts of {@code texts}, as many as possible up to all, whose count has no factor in common with {@code scopes}. */
    static List<String> primeTo(List<String> texts, int scopes) {
        int n = texts.size();
        while (n > 1 && gcd(n, scopes) != 1) {
            n--;
        }
        return texts.subList(0, n);
    }

    private static int gcd(int a, int b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /** Real vectors of {@code texts} and {@code queries} by {@code model}, kept in {@code file} and read from it when it matches. */
    static ScaleCorpus embedOrLoad(EmbeddingModel model, List<String> texts, List<String> queries, Path file) throws IOException {
        try (OnnxEmbedder e = OnnxEmbedder.builder(model).build()) {
            VectorFile vectors = null;
            if (Files.isRegularFile(file)) {
                VectorFile kept = VectorFile.read(file);
                if (kept.passages().length == texts.size()) {
                    vectors = kept.withQueries(e, queries);
                }
            }
            if (vectors == null) {
                vectors = VectorFile.embed(e, texts, queries);
            }
            vectors.write(file);
            return new ScaleCorpus(texts, vectors.passages(), vectors.queries());
        }
    }

    /** Random unit vectors of {@code dimensions} for every text and query: for tests, where no model runs. */
    static ScaleCorpus random(List<String> texts, List<String> queries, int dimensions, long seed) {
        Random r = new Random(seed);
        float[][] base = new float[texts.size()][];
        for (int i = 0; i < base.length; i++) {
            base[i] = unit(r, dimensions);
        }
        Map<String, float[]> qs = new HashMap<>();
        queries.forEach(q -> qs.put(q, unit(r, dimensions)));
        return new ScaleCorpus(texts, base, qs);
    }

    private static float[] unit(Random r, int dimensions) {
        float[] v = new float[dimensions];
        for (int d = 0; d < dimensions; d++) {
            v[d] = (float) r.nextGaussian();
        }
        return normalise(v);
    }

    int dimensions() {
        return base[0].length;
    }

    /** Passage {@code i}'s text: its real text and its number, which {@link SearchSpeed#passageId} reads back. */
    String text(int i) {
        return texts.get(i % texts.size()) + " (p" + i + ")";
    }

    /** Passage {@code i}'s vector, the same on every call. */
    float[] vector(int i) {
        float[] b = base[i % base.length];
        SplittableRandom r = new SplittableRandom(i * 2654435761L);
        float[] v = new float[b.length];
        for (int d = 0; d < v.length; d++) {
            v[d] = b[d] + (float) (r.nextGaussian() * NOISE);
        }
        return normalise(v);
    }

    private static float[] normalise(float[] v) {
        double norm = Math.sqrt(BenchData.dot(v, v));
        for (int d = 0; d < v.length; d++) {
            v[d] /= (float) norm;
        }
        return v;
    }

    /** The vector of a passage's text; a text without a number (the index's probe of the model) gets a real vector. */
    float[] vectorOf(String text) {
        try {
            return vector(BenchData.passageId(text));
        } catch (IllegalStateException noNumber) {
            return base[Math.floorMod(text.hashCode(), base.length)];
        }
    }

    float[] query(String q) {
        float[] v = queries.get(q);
        if (v == null) {
            throw new IllegalStateException("no vector for query '" + q + "'");
        }
        return v;
    }

    /** Documents embedded by {@link #vector} (from the number in their text), queries replayed. */
    Embedder embedder() {
        ScaleCorpus self = this;
        return new Embedder() {
            @Override
            public String id() {
                return "scale:" + self.dimensions();
            }

            @Override
            public int dimensions() {
                return self.dimensions();
            }

            @Override
            public List<float[]> embed(List<String> passages) {
                return passages.stream().map(self::vectorOf).toList();
            }

            @Override
            public float[] embedQuery(String query) {
                return self.query(query);
            }
        };
    }
}
