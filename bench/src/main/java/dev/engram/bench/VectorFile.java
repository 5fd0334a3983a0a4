package dev.engram.bench;

import dev.engram.memory.onnx.OnnxEmbedder;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Real passage and query vectors of a benchmark, embedded once and kept in a file of its work directory, so that later
 * runs replay them instead of running the model ({@link ScopeSpeed}, {@link ScaleCorpus}). The file holds the passage
 * count and dimensions, every passage vector in order, then each query's text and vector (big-endian floats).
 */
record VectorFile(float[][] passages, Map<String, float[]> queries) {
    /** The size of each call to the embedder while embedding passages (the indexer's batch size). */
    private static final int BATCH = 512;

    /** {@code passages} and {@code queries} embedded by {@code embedder}, passages in calls of {@value #BATCH}. */
    static VectorFile embed(OnnxEmbedder embedder, List<String> passages, List<String> queries) {
        float[][] base = new float[passages.size()][];
        for (int from = 0; from < passages.size(); from += BATCH) {
            List<float[]> out = embedder.embed(passages.subList(from, Math.min(passages.size(), from + BATCH)));
            for (int i = 0; i < out.size(); i++) {
                base[from + i] = out.get(i);
            }
        }
        return new VectorFile(base, Map.of()).withQueries(embedder, queries);
    }

    /** These vectors with every query of {@code queries} not yet kept embedded by {@code embedder}. */
    VectorFile withQueries(OnnxEmbedder embedder, List<String> more) {
        Map<String, float[]> qs = new HashMap<>(queries);
        more.stream().filter(q -> !qs.containsKey(q)).forEach(q -> qs.put(q, embedder.embedQuery(q)));
        return new VectorFile(passages, qs);
    }

    /** Writes these vectors to {@code file}, replacing it. */
    void write(Path file) throws IOException {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
            out.writeInt(passages.length);
            out.writeInt(passages.length == 0 ? 0 : passages[0].length);
            for (float[] v : passages) {
                writeVector(out, v);
            }
            out.writeInt(queries.size());
            for (Map.Entry<String, float[]> q : queries.entrySet()) {
                out.writeUTF(q.getKey());
                writeVector(out, q.getValue());
            }
        }
    }

    /** The vectors {@link #write} kept in {@code file}. */
    static VectorFile read(Path file) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            int n = in.readInt();
            int dims = in.readInt();
            float[][] base = new float[n][];
            for (int i = 0; i < n; i++) {
                base[i] = readVector(in, dims);
            }
            int count = in.readInt();
            Map<String, float[]> qs = new HashMap<>();
            for (int i = 0; i < count; i++) {
                String q = in.readUTF();
                qs.put(q, readVector(in, dims));
            }
            return new VectorFile(base, qs);
        }
    }

    private static void writeVector(DataOutputStream out, float[] v) throws IOException {
        for (float f : v) {
            out.writeFloat(f);
        }
    }

    private static float[] readVector(DataInputStream in, int dims) throws IOException {
        float[] v = new float[dims];
        for (int d = 0; d < dims; d++) {
            v[d] = in.readFloat();
        }
        return v;
    }
}
