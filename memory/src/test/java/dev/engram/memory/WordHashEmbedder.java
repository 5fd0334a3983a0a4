package dev.engram.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A deterministic stand-in for an embedding model in conformance tests: each word of a text (lower-cased) adds one to
 * a dimension chosen by its hash; the vector is then scaled to unit length. Same text, same vector, on every machine.
 */
public final class WordHashEmbedder implements Embedder {
    private static final int DIMENSIONS = 64;

    @Override
    public String id() {
        return "word-hash-64";
    }

    @Override
    public int dimensions() {
        return DIMENSIONS;
    }

    @Override
    public List<float[]> embed(List<String> texts) {
        List<float[]> out = new ArrayList<>(texts.size());
        for (String text : texts) {
            float[] v = new float[DIMENSIONS];
            for (String word : text.toLowerCase(Locale.ROOT).split("[^a-z0-9]+")) {
                if (!word.isEmpty()) {
                    v[Math.floorMod(word.hashCode(), DIMENSIONS)] += 1f;
                }
            }
            double norm = 0;
            for (float x : v) {
                norm += x * x;
            }
            if (norm == 0) {
                v[0] = 1f;
                norm = 1;
            }
            for (int i = 0; i < DIMENSIONS; i++) {
                v[i] = (float) (v[i] / Math.sqrt(norm));
            }
            out.add(v);
        }
        return out;
    }
}
