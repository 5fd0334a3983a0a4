package dev.engram.bench;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Search speed at two scales, through Engram's own store and index, next to SQLite FTS5 bm25() and
 * exact cosine over vectors stored in SQLite, in the same run. Usage:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Xmx12g \
 *      -cp bench/target/benchmarks.jar dev.engram.bench.SearchSpeed [--data ../shared/data] [--work DIR]
 *      [--passages 100000] [--million 1000000] [--scopes 1000] [--queries 300] [--model bge-small|minilm] [--candidates 100] [--graph M,BEAM] [--skip-million] [--reuse]
 * </pre>
 *
 * <p>Passages are real text (SciFact sentences, sentence pairs and triples, LoCoMo turns) with real (default: bge-small)
 * vectors. The 1M set reuses those vectors with small Gaussian perturbations (renormalised), because
 * uniform random vectors make HNSW behave unlike real data. "Without query embedding" replays
 * precomputed query vectors; "with" runs the model on the query.
 */
public final class SearchSpeed {
    /** How long each query kind runs untimed before it is measured. */
    private static final Duration WARM_UP = Duration.ofSeconds(5);
    /**
     * Texts per embedder call, both for the raw yardstick and for the indexer at 100k: the embedder sorts
     * each call's texts by length before batching, so bigger calls pad less, and both sides must match.
     */
    private static final int INGEST_BATCH = 512;
    /** How many times the query set is timed per query kind (more samples steady the p99). */
    private static final int TIMED_PASSES = 5;

    private SearchSpeed() {
    }

    public static void main(String[] args) throws Exception {
        Path data = Path.of("../shared/data");
        Path work = Files.createTempDirectory("engram-search-speed");
        int passages = 100_000;
        int million = 1_000_000;
        int scopes = 1_000;
        int queries = 300;
        boolean skipMillion = false;
        int candidates = dev.engram.memory.lucene.LuceneMemorySearch.DEFAULT_CANDIDATES;
        EmbeddingModel embeddingModel = EmbeddingModel.defaultModel();
        boolean reuse = false;
        int[] graph = {16, 100};
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = Path.of(args[++i]);
                case "--work" -> work = Path.of(args[++i]);
                case "--passages" -> passages = Integer.parseInt(args[++i]);
                case "--million" -> million = Integer.parseInt(args[++i]);
                case "--scopes" -> scopes = Integer.parseInt(args[++i]);
                case "--queries" -> queries = Integer.parseInt(args[++i]);
                case "--skip-million" -> skipMillion = true;
                case "--candidates" -> candidates = Integer.parseInt(args[++i]);
                case "--model" -> embeddingModel = EmbeddingModel.byName(args[++i]);
                case "--reuse" -> reuse = true;
                case "--graph" -> {
                    String[] mb = args[++i].split(",");
                    graph = new int[] {Integer.parseInt(mb[0]), Integer.parseInt(mb[1])};
                }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Files.createDirectories(work);
        List<String> texts = BenchData.loadPassages(data, passages);
        List<String> queryTexts = BenchData.loadQueries(data, queries);
        if (reuse) {
            queriesOnly(work, queryTexts, scopes, candidates, embeddingModel);
            return;
        }
        System.out.printf(Locale.ROOT, "passages %d, queries %d, HNSW graph maxConn %d beamWidth %d, work dir %s%n", texts.size(),
                queryTexts.size(), graph[0], graph[1], work);

        try (OnnxEmbedder model = OnnxEmbedder.builder(embeddingModel).build()) {
            // Raw embedder throughput, batched, on a sample: the yardstick for ingest. The sample is spread
            // evenly over all passages, so it has their mix of lengths (single sentences come first in the
            // list, pairs and triples last, and a longer text costs more to embed).
            // This VM's speed drifts by tens of percent within minutes, so the rate is taken before and after
            // the ingest and the ratio uses their mean.
            List<String> sample = evenSample(texts, 4_096);
            model.embed(sample.subList(0, Math.min(INGEST_BATCH, sample.size())));
            double rawBefore = rawRate(model, sample);
            System.out.printf(Locale.ROOT, "raw " + model.model().shortName() + " embedding before ingest: %.0f passages/s (calls of %d texts, as the indexer "
                    + "makes, %d threads)%n", rawBefore, INGEST_BATCH, Runtime.getRuntime().availableProcessors());

            Map<String, float[]> queryVectors = new HashMap<>();
            for (String q : queryTexts) {
                queryVectors.put(q, model.embedQuery(q));
            }

            // ---- scale 1: every passage in one scope, embedded for real during ingest
            float[][] vectors = new float[texts.size()][];
            Recording recording = new Recording(model, vectors);
            Scope one = Scope.of("bench", "single");
            Path dir1 = work.resolve("single");
            List<String> withIds = new ArrayList<>(texts.size());
            for (int i = 0; i < texts.size(); i++) {
                withIds.add(texts.get(i) + " (p" + i + ")");
            }
            try (MemoryStore store = MemoryStore.sqlite(dir1.resolve("memory.db"))) {
                long ingestStart = System.nanoTime();
                for (int from = 0; from < withIds.size(); from += 5_000) {
                    store.archival().insertAll(one, withIds.subList(from, Math.min(withIds.size(), from + 5_000)).stream()
                            .map(NewArchivalEntry::of).toList());
                }
                try (LuceneMemorySearch search = LuceneMemorySearch.builder(store, recording).directory(dir1.resolve("index"))
                        .graph(graph[0], graph[1])
                        .backgroundInterval(Duration.ZERO).batchEvents(INGEST_BATCH).build()) {
                    search.awaitIndexed();
                    double seconds = (System.nanoTime() - ingestStart) / 1e9;
                    double perSecond = texts.size() / seconds;
                    double rawAfter = rawRate(model, sample);
                    double raw = (rawBefore + rawAfter) / 2;
                    System.out.printf(Locale.ROOT, "%nscale: %,d passages in one scope%n", texts.size());
                    System.out.printf(Locale.ROOT, "raw " + model.model().shortName() + " embedding after ingest: %.0f passages/s; mean of before and after %.0f%n",
                            rawAfter, raw);
                    System.out.printf(Locale.ROOT, "ingest with embeddings (store + index): %.0f passages/s = %.0f%% of raw embedding; "
                            + "index size %s%n", perSecond, 100 * perSecond / raw, BenchData.megabytes(dir1.resolve("index")));
                }
                Supplier<Scope> scopeOfQuery = () -> one;
                measure(store, dir1, recording, model, queryTexts, queryVectors, scopeOfQuery, vectors, null, candidates);
                SqliteBaselines.run(work.resolve("baseline-single.db"), texts.size(), texts::get, i -> vectors[i], 1, queryTexts,
                        queryVectors);
            }

            if (skipMillion) {
                return;
            }
            // ---- scale 2: a million passages over many scopes, perturbed real vectors
            int n = million;
            int scopeCount = scopes;
            Perturbed perturbed = new Perturbed(vectors, queryVectors);
            Path dir2 = work.resolve("million");
            try (MemoryStore store = MemoryStore.sqlite(dir2.resolve("memory.db"))) {
                long start = System.nanoTime();
                int batch = 10_000;
                for (int from = 0; from < n; from += batch) {
                    Map<Integer, List<NewArchivalEntry>> byScope = new HashMap<>();
                    for (int i = from; i < Math.min(n, from + batch); i++) {
                        byScope.computeIfAbsent(i % scopeCount, k -> new ArrayList<>())
                                .add(NewArchivalEntry.of(texts.get(i % texts.size()) + " (p" + i + ")"));
                    }
                    for (Map.Entry<Integer, List<NewArchivalEntry>> e : byScope.entrySet()) {
                        store.archival().insertAll(Scope.of("user" + e.getKey(), "agent"), e.getValue());
                    }
                }
                double storeSeconds = (System.nanoTime() - start) / 1e9;
                try (LuceneMemorySearch search = LuceneMemorySearch.builder(store, perturbed).directory(dir2.resolve("index"))
                        .graph(graph[0], graph[1])
                        .backgroundInterval(Duration.ZERO).batchEvents(2_048).build()) {
                    search.awaitIndexed();
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.printf(Locale.ROOT, "%nscale: %,d passages over %,d scopes%n", n, scopeCount);
                System.out.printf(Locale.ROOT, "ingest without embedding (replayed vectors): store %.0f s, store + index %.0f s "
                        + "(%.0f passages/s); index size %s%n", storeSeconds, seconds, n / seconds, BenchData.megabytes(dir2.resolve("index")));
                Random pick = new Random(5);
                Supplier<Scope> randomScope = () -> Scope.of("user" + pick.nextInt(scopeCount), "agent");
                measure(store, dir2, perturbed, model, queryTexts, queryVectors, randomScope, null, perturbed, candidates);
            }
            SqliteBaselines.run(work.resolve("baseline-million.db"), n, i -> texts.get(i % texts.size()), perturbed::vector, scopeCount,
                    queryTexts, queryVectors);
        }
    }

    /** Passages per second embedding {@code sample} in calls of {@link #INGEST_BATCH} texts. */
    private static double rawRate(OnnxEmbedder model, List<String> sample) {
        long t0 = System.nanoTime();
        for (int from = 0; from < sample.size(); from += INGEST_BATCH) {
            model.embed(sample.subList(from, Math.min(sample.size(), from + INGEST_BATCH)));
        }
        return sample.size() / ((System.nanoTime() - t0) / 1e9);
    }

    /** {@code n} items spread evenly over {@code all} (all of them if there are fewer). */
    static List<String> evenSample(List<String> all, int n) {
        if (all.size() <= n) {
            return all;
        }
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(all.get((int) ((long) i * all.size() / n)));
        }
        return out;
    }

    /**
     * {@code --reuse}: only the query latencies, against the stores and indexes an earlier run left in
     * {@code work} (recall needs the vectors recorded at ingest, so it is not measured here).
     */
    private static void queriesOnly(Path work, List<String> queryTexts, int scopeCount, int candidates, EmbeddingModel embeddingModel)
            throws IOException {
        try (OnnxEmbedder model = OnnxEmbedder.builder(embeddingModel).build()) {
            Map<String, float[]> queryVectors = new HashMap<>();
            for (String q : queryTexts) {
                queryVectors.put(q, model.embedQuery(q));
            }
            Embedder documents = new SplitEmbedder(model, queryVectors::get);
            for (String scale : List.of("single", "million")) {
                Path dir = work.resolve(scale);
                if (!Files.isDirectory(dir.resolve("index"))) {
                    continue;
                }
                try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"))) {
                    Random pick = new Random(5);
                    Supplier<Scope> scope = scale.equals("single") ? () -> Scope.of("bench", "single")
                            : () -> Scope.of("user" + pick.nextInt(scopeCount), "agent");
                    System.out.printf(Locale.ROOT, "%nscale: %s (reused)%n", scale);
                    measure(store, dir, documents, model, queryTexts, queryVectors, scope, null, null, candidates);
                }
            }
        }
    }

    /** Latencies of the three modes, without and with query embedding, and HNSW recall against exact search. */
    private static void measure(MemoryStore store, Path dir, Embedder indexEmbedder, OnnxEmbedder model, List<String> queries,
            Map<String, float[]> queryVectors, Supplier<Scope> scopeOfQuery, float[][] singleScopeVectors, Perturbed perturbed,
            int candidates) throws IOException {
        System.out.printf(Locale.ROOT, "(candidates %d)%n", candidates);
        warm(dir);
        Embedder replayQueries = new SplitEmbedder(indexEmbedder, queryVectors::get);
        Embedder realQueries = new SplitEmbedder(indexEmbedder, model::embedQuery);
        System.out.printf(Locale.ROOT, "%-34s %9s %9s%n", "query (k=10, scoped)", "p50 ms", "p99 ms");
        for (boolean embedQuery : new boolean[] {false, true}) {
            try (LuceneMemorySearch search = LuceneMemorySearch.builder(store, embedQuery ? realQueries : replayQueries)
                    .directory(dir.resolve("index")).candidates(candidates).backgroundInterval(Duration.ZERO).build()) {
                for (SearchMode mode : SearchMode.values()) {
                    if (embedQuery && mode == SearchMode.BM25) {
                        continue;
                    }
                    // Warm up as a serving process is warm: every query at least once, and for at least
                    // WARM_UP, so that the JIT has compiled the search path before anything is timed.
                    long warmUntil = System.nanoTime() + WARM_UP.toNanos();
                    for (int warm = 0; warm < queries.size() || System.nanoTime() < warmUntil; warm++) {
                        search.search(SearchRequest.builder(scopeOfQuery.get(), queries.get(warm % queries.size())).mode(mode)
                                .domains(SearchDomain.ARCHIVAL).build());
                    }
                    long[] nanos = new long[queries.size() * TIMED_PASSES];
                    for (int i = 0; i < nanos.length; i++) {
                        SearchRequest r = SearchRequest.builder(scopeOfQuery.get(), queries.get(i % queries.size())).mode(mode)
                                .domains(SearchDomain.ARCHIVAL).build();
                        long t = System.nanoTime();
                        search.search(r);
                        nanos[i] = System.nanoTime() - t;
                    }
                    Arrays.sort(nanos);
                    System.out.printf(Locale.ROOT, "%-34s %9.3f %9.3f%n", "engram " + mode.name().toLowerCase(Locale.ROOT)
                            + (embedQuery ? " + " + model.model().shortName() + " query" : ""), nanos[nanos.length / 2] / 1e6,
                            nanos[(int) (nanos.length * 0.99)] / 1e6);
                }
                if (!embedQuery && (singleScopeVectors != null || perturbed != null)) {
                    recall(search, queries, queryVectors, scopeOfQuery, singleScopeVectors, perturbed, store);
                }
            }
        }
    }

    /**
     * Reads every file of the store and index once, so that latencies are measured from the page
     * cache, as a serving process's are: this VM's memory reclaimer evicts pages that go cold.
     */
    private static void warm(Path dir) throws IOException {
        byte[] buffer = new byte[1 << 20];
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                try (java.io.InputStream in = Files.newInputStream(f)) {
                    while (in.read(buffer) > 0) {
                        // read to the end
                    }
                }
            }
        }
    }

    /** HNSW recall@10: the vector mode's top 10 against exact top 10 by brute force over the scope's vectors. */
    private static void recall(LuceneMemorySearch search, List<String> queries, Map<String, float[]> queryVectors,
            Supplier<Scope> scopeOfQuery, float[][] singleScopeVectors, Perturbed perturbed, MemoryStore store) {
        double total = 0;
        int count = Math.min(100, queries.size());
        for (int q = 0; q < count; q++) {
            Scope scope = scopeOfQuery.get();
            float[] qv = queryVectors.get(queries.get(q));
            List<SearchHit> hits = search.search(SearchRequest.builder(scope, queries.get(q)).mode(SearchMode.VECTOR)
                    .domains(SearchDomain.ARCHIVAL).k(10).build());
            Set<Integer> got = new LinkedHashSet<>();
            for (SearchHit h : hits) {
                got.add(BenchData.passageId(h.text()));
            }
            List<Integer> exact;
            if (singleScopeVectors != null) {
                exact = topK(qv, singleScopeVectors.length, i -> singleScopeVectors[i], i -> i, 10);
            } else {
                List<ArchivalEntry> all = new ArrayList<>();
                for (int off = 0; ; off += 1_000) {
                    List<ArchivalEntry> page = store.archival().list(scope, off, 1_000);
                    all.addAll(page);
                    if (page.size() < 1_000) {
                        break;
                    }
                }
                int[] ids = all.stream().mapToInt(a -> BenchData.passageId(a.content())).toArray();
                exact = topK(qv, ids.length, i -> perturbed.vector(ids[i]), i -> ids[i], 10);
            }
            total += exact.stream().filter(got::contains).count() / 10.0;
        }
        System.out.printf(Locale.ROOT, "%-34s %9.4f%n", "HNSW recall@10 vs exact", total / count);
    }

    private static List<Integer> topK(float[] q, int n, java.util.function.IntFunction<float[]> vector,
            java.util.function.IntUnaryOperator id, int k) {
        PriorityQueue<double[]> heap = new PriorityQueue<>(Comparator.comparingDouble(a -> a[0]));
        for (int i = 0; i < n; i++) {
            double s = BenchData.dot(q, vector.apply(i));
            if (heap.size() < k) {
                heap.add(new double[] {s, id.applyAsInt(i)});
            } else if (s > heap.peek()[0]) {
                heap.poll();
                heap.add(new double[] {s, id.applyAsInt(i)});
            }
        }
        List<Integer> out = new ArrayList<>();
        heap.forEach(a -> out.add((int) a[1]));
        return out;
    }

    /** Embeds for real and remembers each passage's vector by its id, for exact search later. */
    private record Recording(OnnxEmbedder model, float[][] vectors) implements Embedder {
        @Override
        public String id() {
            return model.id();
        }

        @Override
        public int dimensions() {
            return model.dimensions();
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            List<float[]> out = model.embed(texts);
            for (int i = 0; i < texts.size(); i++) {
                vectors[BenchData.passageId(texts.get(i))] = out.get(i);
            }
            return out;
        }

        @Override
        public float[] embedQuery(String query) {
            return model.embedQuery(query);
        }
    }

    /** Perturbed copies of the real vectors, generated deterministically from the passage id. */
    private static final class Perturbed implements Embedder {
        private final float[][] base;
        private final Map<String, float[]> queries;

        Perturbed(float[][] base, Map<String, float[]> queries) {
            this.base = base;
            this.queries = new ConcurrentHashMap<>(queries);
        }

        float[] vector(int id) {
            return BenchData.perturbed(base, id);
        }

        @Override
        public String id() {
            return "perturbed:" + base[0].length;
        }

        @Override
        public int dimensions() {
            return 384;
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            return texts.stream().map(t -> vector(BenchData.passageId(t))).toList();
        }

        @Override
        public float[] embedQuery(String query) {
            return Optional.ofNullable(queries.get(query)).orElseThrow();
        }
    }
}
