package dev.engram.bench;

import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Scoped search latency by scope size, with the limits beside it: one scope of 1,000, 8,000, 30,000 and 100,000
 * passages (each alone in its index, as one agent's memory is), and 100,000 passages over 100 scopes of 1,000 (small
 * scopes in a larger index, as in {@code SearchSpeed}'s million). Beside Engram's BM25, k-NN and hybrid (k = 10, query
 * vectors replayed) the same index answers bare Lucene queries: BM25 of the query's terms in the scope (100 deep, as a
 * hybrid search looks), a k-NN query of 100 through HNSW, and an exact scan of the scope's vectors by Lucene's bulk
 * scorer. Usage:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Xmx6g \
 *      -cp bench/target/benchmarks.jar dev.engram.bench.ScopeSpeed --work DIR [--build] [--sizes 1000,8000,30000,100000]
 *      [--spread 100000,100] [--real 8000] [--queries 300] [--passes 3] [--model bge-small|minilm] [--data ../shared/data]
 * </pre>
 *
 * <p>{@code --build} embeds the first {@code --real} passages and the queries with the model (kept in {@code DIR}) and
 * builds every store and index; passages beyond them get perturbed copies of the real vectors (renormalised), as the
 * million in {@code SearchSpeed} does. Without it, only the latencies are measured against what {@code DIR} holds, so
 * that builds of two versions can be run in turn over the same indexes (see {@code bench/scope-speed.sh}).
 */
public final class ScopeSpeed {
    private static final Duration WARM_UP = Duration.ofSeconds(3);

    private ScopeSpeed() {
    }

    public static void main(String[] args) throws Exception {
        Path data = Path.of("../shared/data");
        Path work = null;
        boolean build = false;
        int[] sizes = {1_000, 8_000, 30_000, 100_000};
        int[] spread = {100_000, 100};
        int real = 8_000;
        int queries = 300;
        int passes = 3;
        EmbeddingModel model = EmbeddingModel.defaultModel();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = Path.of(args[++i]);
                case "--work" -> work = Path.of(args[++i]);
                case "--build" -> build = true;
                case "--sizes" -> sizes = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--spread" -> spread = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--real" -> real = Integer.parseInt(args[++i]);
                case "--queries" -> queries = Integer.parseInt(args[++i]);
                case "--passes" -> passes = Integer.parseInt(args[++i]);
                case "--model" -> model = EmbeddingModel.byName(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (work == null) {
            throw new IllegalArgumentException("--work DIR is required: the indexes are built there once and measured many times");
        }
        Files.createDirectories(work);
        int largest = Math.max(Arrays.stream(sizes).max().orElse(0), spread[0]);
        List<String> texts = BenchData.loadPassages(data, largest);
        List<String> queryTexts = BenchData.loadQueries(data, queries);
        Vectors vectors = build ? Vectors.embed(model, texts.subList(0, Math.min(real, texts.size())), queryTexts, work)
                : Vectors.load(work);
        System.out.printf(Locale.ROOT, "%s; %,d real passage vectors; %d queries x %d passes%n", build ? "build and measure"
                : "measure", vectors.base.length, queryTexts.size(), passes);
        System.out.printf(Locale.ROOT, "%-40s %9s %9s%n", "query (k=10, scoped; ms)", "p50", "p99");
        for (int size : sizes) {
            run(work.resolve("one-" + size), size, 1, texts, queryTexts, vectors, build, passes);
        }
        if (spread[0] > 0) {
            run(work.resolve("spread-" + spread[0] + "-" + spread[1]), spread[0], spread[1], texts, queryTexts, vectors, build, passes);
        }
    }

    private static void run(Path dir, int n, int scopes, List<String> texts, List<String> queries, Vectors vectors,
            boolean build, int passes) throws IOException {
        Embedder embedder = vectors.embedder();
        try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"))) {
            if (build) {
                long start = System.nanoTime();
                for (int from = 0; from < n; from += 5_000) {
                    Map<Integer, List<NewArchivalEntry>> byScope = new HashMap<>();
                    for (int i = from; i < Math.min(n, from + 5_000); i++) {
                        byScope.computeIfAbsent(i % scopes, s -> new ArrayList<>())
                                .add(NewArchivalEntry.of(texts.get(i % texts.size()) + " (p" + i + ")"));
                    }
                    byScope.forEach((s, entries) -> store.archival().insertAll(scope(s, scopes), entries));
                }
                try (LuceneMemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                        .backgroundInterval(Duration.ZERO).batchEvents(2_048).build()) {
                    search.awaitIndexed();
                }
                System.out.printf(Locale.ROOT, "(built %,d passages over %d scope(s) in %.0f s)%n", n, scopes,
                        (System.nanoTime() - start) / 1e9);
            }
            String label = scopes == 1 ? String.format(Locale.ROOT, "%,d in one scope", n)
                    : String.format(Locale.ROOT, "%,d over %d scopes", n, scopes);
            System.out.printf(Locale.ROOT, "%n%s%n", label);
            Random pick = new Random(5);
            IntFunction<Integer> scopeOf = q -> scopes == 1 ? 0 : pick.nextInt(scopes);
            try (LuceneMemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                    .backgroundInterval(Duration.ZERO).build()) {
                for (SearchMode mode : SearchMode.values()) {
                    time("engram " + mode.name().toLowerCase(Locale.ROOT), queries, passes, q -> {
                        search.search(SearchRequest.builder(scope(scopeOf.apply(q), scopes), queries.get(q)).mode(mode)
                                .domains(SearchDomain.ARCHIVAL).build());
                    });
                }
                recall(search, queries, vectors, n, scopes);
            }
            limits(dir, queries, vectors, scopes, passes);
        }
    }

    private static Scope scope(int s, int scopes) {
        return scopes == 1 ? Scope.of("bench", "single") : Scope.of("user" + s, "agent");
    }

    private static void time(String name, List<String> queries, int passes, LuceneLimits.Work work) throws IOException {
        long warmUntil = System.nanoTime() + WARM_UP.toNanos();
        for (int i = 0; i < queries.size() || System.nanoTime() < warmUntil; i++) {
            work.run(i % queries.size());
        }
        long[] nanos = new long[queries.size() * passes];
        for (int i = 0; i < nanos.length; i++) {
            long t = System.nanoTime();
            work.run(i % queries.size());
            nanos[i] = System.nanoTime() - t;
        }
        Arrays.sort(nanos);
        System.out.printf(Locale.ROOT, "%-40s %9.3f %9.3f%n", name, nanos[nanos.length / 2] / 1e6,
                nanos[(int) (nanos.length * 0.99)] / 1e6);
    }

    /** Recall@10 of the vector mode against brute force over the scope's own vectors. */
    private static void recall(LuceneMemorySearch search, List<String> queries, Vectors vectors, int n, int scopes) {
        Random pick = new Random(9);
        double total = 0;
        int count = Math.min(100, queries.size());
        for (int q = 0; q < count; q++) {
            int s = scopes == 1 ? 0 : pick.nextInt(scopes);
            Set<Integer> got = new HashSet<>();
            for (SearchHit h : search.search(SearchRequest.builder(scope(s, scopes), queries.get(q)).mode(SearchMode.VECTOR)
                    .domains(SearchDomain.ARCHIVAL).k(10).build())) {
                got.add(BenchData.passageId(h.text()));
            }
            float[] qv = vectors.query(queries.get(q));
            List<double[]> all = new ArrayList<>();
            for (int i = s; i < n; i += scopes) {
                all.add(new double[] {BenchData.dot(qv, vectors.vector(i)), i});
            }
            all.sort((a, b) -> Double.compare(b[0], a[0]));
            total += all.subList(0, Math.min(10, all.size())).stream().filter(e -> got.contains((int) e[1])).count() / 10.0;
        }
        System.out.printf(Locale.ROOT, "%-40s %9.4f%n", "engram vector recall@10 vs exact", total / count);
    }

    /** Bare Lucene on the same index: the nearest limits of what Engram's scoped search does. */
    private static void limits(Path dir, List<String> queries, Vectors vectors, int scopes, int passes) throws IOException {
        LuceneLimits.measure(dir.resolve("index"), queries, vectors::query, scopes, (name, work) -> time(name, queries, passes, work));
    }

    /** The real passage vectors and query vectors, kept in the work directory; other passages get perturbed copies. */
    private record Vectors(float[][] base, Map<String, float[]> queries, Map<Integer, float[]> perturbed) {
        Vectors(float[][] base, Map<String, float[]> queries) {
            this(base, queries, new java.util.concurrent.ConcurrentHashMap<>());
        }

        static Vectors embed(EmbeddingModel model, List<String> passages, List<String> queries, Path work) throws IOException {
            try (OnnxEmbedder e = OnnxEmbedder.builder(model).build()) {
                VectorFile vectors = VectorFile.embed(e, passages, queries);
                vectors.write(work.resolve("vectors.bin"));
                return new Vectors(vectors.passages(), vectors.queries());
            }
        }

        static Vectors load(Path work) throws IOException {
            VectorFile vectors = VectorFile.read(work.resolve("vectors.bin"));
            return new Vectors(vectors.passages(), vectors.queries());
        }

        float[] query(String q) {
            float[] v = queries.get(q);
            if (v == null) {
                throw new IllegalStateException("no vector kept for query '" + q + "': build again with the same --queries");
            }
            return v;
        }

        /** Passage {@code id}'s vector: real for the first passages, a perturbed, renormalised copy of one for the rest (made once). */
        float[] vector(int id) {
            return id < base.length ? base[id] : perturbed.computeIfAbsent(id, this::perturb);
        }

        private float[] perturb(int id) {
            return BenchData.perturbed(base, id);
        }

        /** Documents embedded by {@link #vector}, queries replayed. */
        Embedder embedder() {
            Vectors self = this;
            return new Embedder() {
                @Override
                public String id() {
                    return "scope-speed:" + base[0].length;
                }

                @Override
                public int dimensions() {
                    return base[0].length;
                }

                @Override
                public List<float[]> embed(List<String> texts) {
                    return texts.stream().map(t -> self.vector(BenchData.passageId(t))).toList();
                }

                @Override
                public float[] embedQuery(String query) {
                    return self.query(query);
                }
            };
        }
    }
}
