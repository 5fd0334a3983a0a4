package dev.engram.bench.eval;

import dev.engram.memory.Embedder;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An embedder that remembers every vector it computed in a file of its own per model, so that repeated evaluations
 * of settings that change only the index or the fusion embed each passage and query once. Documents and queries are
 * kept apart, a query under the prefix its model puts before it ({@link OnnxEmbedder#queryPrefix()}), so that
 * vectors of a query embedded with another prefix (an instruction turned on or off) are never replayed. The wrapped
 * embedder is closed with this one.
 */
public final class CachingEmbedder implements Embedder {
    private final Embedder inner;
    private final Path file;
    private final Map<String, float[]> cache = new ConcurrentHashMap<>();
    private final Map<String, float[]> added = new LinkedHashMap<>();
    /** What a query's key starts with: its model's query prefix, ended by a character no text holds. */
    private final String queryKey;

    private CachingEmbedder(Embedder inner, Path file) {
        this.inner = inner;
        this.file = file;
        this.queryKey = "q:" + (inner instanceof OnnxEmbedder onnx ? onnx.queryPrefix() : "") + "\u0000";
        load();
    }

    /** Wraps {@code inner}, keeping its vectors under {@code directory} (created if missing). */
    public static CachingEmbedder over(Embedder inner, Path directory) {
        Objects.requireNonNull(inner, "inner");
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the embedding cache directory " + directory, e);
        }
        String name = HexFormat.of().formatHex(sha256(inner.id())).substring(0, 16) + ".vectors";
        return new CachingEmbedder(inner, directory.resolve(name));
    }

    @Override
    public String id() {
        return inner.id();
    }

    @Override
    public int dimensions() {
        return inner.dimensions();
    }

    @Override
    public List<float[]> embed(List<String> texts) {
        List<String> missing = texts.stream().filter(t -> !cache.containsKey("d" + t)).distinct().toList();
        if (!missing.isEmpty()) {
            List<float[]> vectors = inner.embed(missing);
            synchronized (added) {
                for (int i = 0; i < missing.size(); i++) {
                    cache.put("d" + missing.get(i), vectors.get(i));
                    added.put("d" + missing.get(i), vectors.get(i));
                }
            }
        }
        List<float[]> out = new ArrayList<>(texts.size());
        texts.forEach(t -> out.add(cache.get("d" + t)));
        return out;
    }

    @Override
    public float[] embedQuery(String query) {
        return cache.computeIfAbsent(queryKey + query, k -> {
            float[] v = inner.embedQuery(query);
            synchronized (added) {
                added.put(k, v);
            }
            return v;
        });
    }

    /** Appends the vectors computed since opening to the cache file, then closes the wrapped embedder. */
    @Override
    public void close() {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND)))) {
            synchronized (added) {
                for (Map.Entry<String, float[]> e : added.entrySet()) {
                    byte[] key = e.getKey().getBytes(StandardCharsets.UTF_8);
                    out.writeInt(key.length);
                    out.write(key);
                    out.writeInt(e.getValue().length);
                    for (float f : e.getValue()) {
                        out.writeFloat(f);
                    }
                }
                added.clear();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the embedding cache " + file, e);
        } finally {
            inner.close();
        }
    }

    private void load() {
        if (!Files.isRegularFile(file)) {
            return;
        }
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            while (true) {
                int keyLength;
                try {
                    keyLength = in.readInt();
                } catch (EOFException end) {
                    return;
                }
                byte[] key = in.readNBytes(keyLength);
                float[] v = new float[in.readInt()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = in.readFloat();
                }
                cache.put(new String(key, StandardCharsets.UTF_8), v);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the embedding cache " + file + " (delete it to start anew)", e);
        }
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
