package dev.engram.bench;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.LongBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a query embedding costs, old and new settings side by side in one process, next to its limits: the raw ONNX
 * session run on an already tokenised query (the model's own cost) and the tokenizer alone. The kinds are timed in
 * turns (each round runs every kind over all queries once, rounds repeat), so that this VM's drift touches them
 * alike. Usage:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Dai.djl.offline=true \
 *      -cp bench/target/benchmarks.jar dev.engram.bench.EmbedSpeed [--data ../shared/data] [--queries 300] [--rounds 5]
 *      [--model bge-small|minilm]
 * </pre>
 *
 * <p>"today" is the embedder as it was (ONNX Runtime's threads spinning, no cache); "new" is the default now (threads
 * sleep between runs; the query cache off here, so that every call runs the model), and "new, repeated query" the same
 * query asked again (from the cache).
 */
public final class EmbedSpeed {
    private EmbedSpeed() {
    }

    /** One kind of call, timed per query. */
    private interface Call {
        void run(String query) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Path data = Path.of("../shared/data");
        int queries = 300;
        int rounds = 5;
        EmbeddingModel model = EmbeddingModel.defaultModel();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = Path.of(args[++i]);
                case "--queries" -> queries = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--model" -> model = EmbeddingModel.byName(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        List<String> texts = BenchData.loadQueries(data, queries);
        int threads = Runtime.getRuntime().availableProcessors();
        EmbeddingModel m = model;
        try (OnnxEmbedder today = OnnxEmbedder.builder(model).spinning(true).queryCache(0).build();
                OnnxEmbedder now = OnnxEmbedder.builder(model).queryCache(0).build();
                OnnxEmbedder cached = OnnxEmbedder.builder(model).build();
                HuggingFaceTokenizer tokenizer = tokenizer(model)) {
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            byte[] onnx = resource(model.modelResource());
            try (OrtSession spinning = session(env, onnx, threads, true); OrtSession sleeping = session(env, onnx, threads, false)) {
                Map<String, long[]> tokens = new HashMap<>();
                for (String q : texts) {
                    tokens.put(q, tokenizer.encode(m.queryPrefix() + q).getIds());
                    cached.embedQuery(q);
                }
                Map<String, Call> calls = new LinkedHashMap<>();
                calls.put("today: embedQuery (spinning, no cache)", today::embedQuery);
                calls.put("new: embedQuery (sleeping threads)", now::embedQuery);
                calls.put("new: embedQuery, repeated query (cache)", cached::embedQuery);
                calls.put("limit: raw session run, spinning", q -> run(env, spinning, tokens.get(q)));
                calls.put("limit: raw session run, sleeping", q -> run(env, sleeping, tokens.get(q)));
                calls.put("limit: tokenizer alone", q -> tokenizer.encode(m.queryPrefix() + q));
                Map<String, long[]> nanos = new LinkedHashMap<>();
                for (String name : calls.keySet()) {
                    nanos.put(name, new long[texts.size() * rounds]);
                }
                for (Call c : calls.values()) { // warm-up: every query once per kind
                    for (String q : texts) {
                        c.run(q);
                    }
                }
                for (int r = 0; r < rounds; r++) {
                    for (Map.Entry<String, Call> c : calls.entrySet()) {
                        long[] out = nanos.get(c.getKey());
                        for (int i = 0; i < texts.size(); i++) {
                            long t = System.nanoTime();
                            c.getValue().run(texts.get(i));
                            out[r * texts.size() + i] = System.nanoTime() - t;
                        }
                    }
                }
                System.out.printf(Locale.ROOT, "%s, %d queries x %d rounds, %d intra-op threads%n", model.shortName(), texts.size(),
                        rounds, threads);
                System.out.printf(Locale.ROOT, "%-42s %9s %9s %9s%n", "query embedding", "p50 ms", "p90 ms", "p99 ms");
                for (Map.Entry<String, long[]> e : nanos.entrySet()) {
                    long[] v = e.getValue();
                    Arrays.sort(v);
                    System.out.printf(Locale.ROOT, "%-42s %9.3f %9.3f %9.3f%n", e.getKey(), v[v.length / 2] / 1e6,
                            v[(int) (v.length * 0.9)] / 1e6, v[(int) (v.length * 0.99)] / 1e6);
                }
                int differ = 0;
                for (String q : texts) {
                    if (!Arrays.equals(today.embedQuery(q), now.embedQuery(q)) || !Arrays.equals(now.embedQuery(q), cached.embedQuery(q))) {
                        differ++;
                    }
                }
                System.out.printf(Locale.ROOT, "vectors not bit-identical between today, new and cached: %d of %d%n", differ, texts.size());
            }
        }
    }

    private static HuggingFaceTokenizer tokenizer(EmbeddingModel model) throws IOException {
        try (InputStream in = OnnxEmbedder.class.getResourceAsStream(model.tokenizerResource())) {
            return HuggingFaceTokenizer.newInstance(in, Map.of("addSpecialTokens", "true", "truncation", "false", "padding", "false"));
        }
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = OnnxEmbedder.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    /** A session as the embedder makes it, with its threads spinning or not. */
    private static OrtSession session(OrtEnvironment env, byte[] onnx, int threads, boolean spin) throws OrtException {
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(threads);
        options.setInterOpNumThreads(1);
        options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        options.addConfigEntry("session.intra_op.allow_spinning", spin ? "1" : "0");
        options.addConfigEntry("session.inter_op.allow_spinning", spin ? "1" : "0");
        return env.createSession(onnx, options);
    }

    /** The model alone on one tokenised query: input tensors, the run, reading the first output. */
    private static void run(OrtEnvironment env, OrtSession session, long[] ids) throws OrtException {
        long[] shape = {1, ids.length};
        long[] mask = new long[ids.length];
        Arrays.fill(mask, 1L);
        List<OnnxTensor> inputs = new ArrayList<>();
        try {
            Map<String, OnnxTensor> byName = new HashMap<>();
            byName.put("input_ids", add(inputs, OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape)));
            byName.put("attention_mask", add(inputs, OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape)));
            if (session.getInputNames().contains("token_type_ids")) {
                byName.put("token_type_ids", add(inputs, OnnxTensor.createTensor(env, LongBuffer.wrap(new long[ids.length]), shape)));
            }
            try (OrtSession.Result result = session.run(byName)) {
                ((OnnxTensor) result.get(0)).getFloatBuffer().get(0);
            }
        } finally {
            inputs.forEach(OnnxTensor::close);
        }
    }

    private static OnnxTensor add(List<OnnxTensor> all, OnnxTensor t) {
        all.add(t);
        return t;
    }
}
