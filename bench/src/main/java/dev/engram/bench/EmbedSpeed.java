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
import java.lang.management.ManagementFactory;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a query embedding costs, the settings of before and of now side by side in one process, next to its limits:
 * the raw ONNX session run on an already tokenised query (the model's own cost) and the tokenizer alone. The kinds are
 * timed in turns (each round runs every kind over all queries once, rounds repeat), so that this VM's drift touches
 * them alike; beside the wall-clock percentiles each row gives the process's CPU time per query (all threads), which
 * a busy machine disturbs less. Usage:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Dai.djl.offline=true \
 *      -cp bench/target/benchmarks.jar dev.engram.bench.EmbedSpeed [--data ../shared/data] [--queries 300] [--rounds 5]
 *      [--model bge-small|minilm] [--onnx FILE.onnx]
 * </pre>
 *
 * <p>"instruction" rows put the model's query instruction ({@link EmbeddingModel#instruction()}) before every query,
 * "no instruction" rows embed the query as it is (ONNX Runtime's threads sleeping between runs, the query cache off
 * so that every call runs the model); "1 thread" rows run the same with one intra-op thread; "spinning" lets the
 * threads spin between the steps of a run (ONNX Runtime's own default). {@code --onnx FILE} adds a raw session row for
 * another model file of the same architecture and vocabulary (e.g. the fp32 bge-small, to compare with the int8 one).
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
        Path other = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = Path.of(args[++i]);
                case "--queries" -> queries = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--model" -> model = EmbeddingModel.byName(args[++i]);
                case "--onnx" -> other = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Path otherModel = other;
        List<String> texts = BenchData.loadQueries(data, queries);
        int threads = Runtime.getRuntime().availableProcessors();
        String instruction = model.instruction();
        try (OnnxEmbedder before = OnnxEmbedder.builder(model).queryPrefix(instruction).queryCache(0).build();
                OnnxEmbedder now = OnnxEmbedder.builder(model).queryPrefix("").queryCache(0).build();
                OnnxEmbedder nowOne = OnnxEmbedder.builder(model).queryPrefix("").threads(1).queryCache(0).build();
                OnnxEmbedder cached = OnnxEmbedder.builder(model).queryPrefix("").build();
                HuggingFaceTokenizer tokenizer = tokenizer(model)) {
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            byte[] onnx = resource(model.modelResource());
            Map<String, OrtSession> sessions = new LinkedHashMap<>();
            sessions.put("sleeping", session(env, onnx, threads, false));
            sessions.put("one", session(env, onnx, 1, false));
            sessions.put("spinning", session(env, onnx, threads, true));
            if (other != null) {
                sessions.put("other", session(env, Files.readAllBytes(other), threads, false));
            }
            try {
                Map<String, long[]> withInstruction = new HashMap<>();
                Map<String, long[]> plain = new HashMap<>();
                long tokensWith = 0;
                long tokensPlain = 0;
                for (String q : texts) {
                    withInstruction.put(q, tokenizer.encode(instruction + q).getIds());
                    plain.put(q, tokenizer.encode(q).getIds());
                    tokensWith += withInstruction.get(q).length;
                    tokensPlain += plain.get(q).length;
                    cached.embedQuery(q);
                }
                Map<String, Call> calls = new LinkedHashMap<>();
                calls.put("embedQuery, instruction, " + threads + " threads", before::embedQuery);
                calls.put("embedQuery, no instruction, " + threads + " thr", now::embedQuery);
                calls.put("embedQuery, no instruction, 1 thread", nowOne::embedQuery);
                calls.put("repeated query (cache)", cached::embedQuery);
                calls.put("limit: raw run, instruction, " + threads + " thr", q -> run(env, sessions.get("sleeping"), withInstruction.get(q)));
                calls.put("limit: raw run, no instr., " + threads + " thr", q -> run(env, sessions.get("sleeping"), plain.get(q)));
                calls.put("limit: raw run, no instr., 1 thread", q -> run(env, sessions.get("one"), plain.get(q)));
                calls.put("limit: raw run, no instr., " + threads + " spinning", q -> run(env, sessions.get("spinning"), plain.get(q)));
                if (other != null) {
                    calls.put("raw run, " + otherModel.getFileName() + ", " + threads + " thr", q -> run(env, sessions.get("other"), plain.get(q)));
                }
                calls.put("limit: tokenizer alone", tokenizer::encode);
                System.out.printf(Locale.ROOT, "the embedder's default query prefix: \"%s\"%n", model.queryPrefix());
                time(calls, texts, rounds, model, threads, tokensWith, tokensPlain);
                int differ = 0;
                double worst = 1;
                for (String q : texts) {
                    if (!Arrays.equals(now.embedQuery(q), cached.embedQuery(q)) || !Arrays.equals(now.embedQuery(q), nowOne.embedQuery(q))) {
                        differ++;
                    }
                    worst = Math.min(worst, dot(before.embedQuery(q), now.embedQuery(q)));
                }
                System.out.printf(Locale.ROOT, "vectors without the instruction not bit-identical between %d threads, 1 thread and the "
                        + "cache: %d of %d; cosine of a query with and without the instruction, lowest: %.4f%n", threads, differ, texts.size(), worst);
            } finally {
                for (OrtSession s : sessions.values()) {
                    s.close();
                }
            }
        }
    }

    /** Runs every kind over every query once as a warm-up, then {@code rounds} rounds in turns, and prints the table. */
    private static void time(Map<String, Call> calls, List<String> texts, int rounds, EmbeddingModel model, int threads,
            long tokensWith, long tokensPlain) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        Map<String, long[]> nanos = new LinkedHashMap<>();
        Map<String, Long> cpu = new LinkedHashMap<>();
        for (String name : calls.keySet()) {
            nanos.put(name, new long[texts.size() * rounds]);
            cpu.put(name, 0L);
        }
        for (Call c : calls.values()) {
            for (String q : texts) {
                c.run(q);
            }
        }
        for (int r = 0; r < rounds; r++) {
            for (Map.Entry<String, Call> c : calls.entrySet()) {
                long[] out = nanos.get(c.getKey());
                long cpu0 = os.getProcessCpuTime();
                for (int i = 0; i < texts.size(); i++) {
                    long t = System.nanoTime();
                    c.getValue().run(texts.get(i));
                    out[r * texts.size() + i] = System.nanoTime() - t;
                }
                cpu.merge(c.getKey(), os.getProcessCpuTime() - cpu0, Long::sum);
            }
        }
        System.out.printf(Locale.ROOT, "%s, %d queries x %d rounds, %d processors, tokens a query %.1f with the instruction, "
                + "%.1f without; load average %.1f%n", model.shortName(), texts.size(), rounds, threads,
                tokensWith / (double) texts.size(), tokensPlain / (double) texts.size(), os.getSystemLoadAverage());
        System.out.printf(Locale.ROOT, "%-44s %8s %8s %8s %10s%n", "query embedding", "p50 ms", "p90 ms", "p99 ms", "CPU ms/q");
        for (Map.Entry<String, long[]> e : nanos.entrySet()) {
            long[] v = e.getValue();
            Arrays.sort(v);
            System.out.printf(Locale.ROOT, "%-44s %8.3f %8.3f %8.3f %10.3f%n", e.getKey(), v[v.length / 2] / 1e6,
                    v[(int) (v.length * 0.9)] / 1e6, v[(int) (v.length * 0.99)] / 1e6, cpu.get(e.getKey()) / 1e6 / v.length);
        }
    }

    private static double dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i] * b[i];
        }
        return s;
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
