package dev.engram.bench;

import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.lucene.LuceneMemorySearch;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
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
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.FSDirectory;

/**
 * Scoped search at scale (issue 34, item 5): passages are added through Engram's store and index in one process, and at
 * each milestone (by default 1M, 2M, 5M and 10M passages over 10,000 scopes) the run prints the build time so far,
 * passages/s, the index's and store's size on disk, the heap after a full GC, and p50/p99 of scoped BM25, k-NN and hybrid
 * (k = 10, query vectors replayed, so without the query embedding) beside bare Lucene on the same index, then goes on.
 * At the end the index is closed and opened again: the time to open and the first query's latency. A run that cannot
 * finish still reports every milestone it reached; it stops adding passages (and reports where it stopped) when the free
 * disk under the work directory falls below {@code --min-free-gb}. Usage:
 *
 * <pre>
 * nice -n 10 java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Xmx8g \
 *      -cp bench/target/benchmarks.jar dev.engram.bench.ScaleSearch --work DIR [--passages 10000000] [--scopes 10000]
 *      [--milestones 1000000,2000000,5000000] [--texts 8000] [--queries 300] [--passes 1] [--min-free-gb 14]
 *      [--indexing-threads N] [--segments-per-tier N] [--model bge-small|minilm] [--data ../shared/data]
 *      [--measure-only ROUNDS]
 * </pre>
 *
 * <p>{@code --measure-only ROUNDS} builds nothing: it opens the store and the index a finished run left in {@code DIR}
 * (checking that they hold {@code --passages} over {@code --scopes}), measures them ROUNDS times as a milestone does,
 * then closes and opens them again; so that a build on a busy machine can be measured later on a quiet one.
 *
 * <p>{@code --segments-per-tier N} builds with the merge policy's N segments per tier instead of the library's default
 * ({@code LuceneMemorySearch.Builder#segmentsPerTier}): fewer segments, more merging.
 *
 * <p>Texts are short real passages (SciFact sentences and LoCoMo turns, {@code --texts} of them, embedded once by the
 * model and kept in {@code DIR/vectors.bin}); see {@link ScaleCorpus} for how ten million are made of them.
 */
public final class ScaleSearch {
    /** How one run is shaped. */
    record Options(Path work, int passages, int scopes, List<Integer> milestones, int passes, Duration warmUp,
            long minFreeBytes, int chunk, int indexingThreads) {
        Options {
            if (passages < 1 || scopes < 1 || passes < 1 || chunk < 1) {
                throw new IllegalArgumentException("passages, scopes, passes and chunk must be positive");
            }
            if (indexingThreads < 0) {
                throw new IllegalArgumentException("indexing threads must be 0 (the library's default) or more");
            }
            List<Integer> sorted = new ArrayList<>(new java.util.TreeSet<>(milestones));
            sorted.removeIf(m -> m >= passages);
            if (sorted.stream().anyMatch(m -> m < 1)) {
                throw new IllegalArgumentException("milestones must be positive, got " + milestones);
            }
            sorted.add(passages);
            milestones = List.copyOf(sorted);
        }
    }

    private final Options options;
    private final ScaleCorpus corpus;
    private final List<String> queries;
    private final PrintStream out;
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    /** The merge policy's segments per tier for a build; 0: the library's default. */
    private double segmentsPerTier;

    ScaleSearch(Options options, ScaleCorpus corpus, List<String> queries, PrintStream out) {
        this.options = options;
        this.corpus = corpus;
        this.queries = List.copyOf(queries);
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        Path data = Path.of("../shared/data");
        Path work = null;
        int passages = 10_000_000;
        int scopes = 10_000;
        List<Integer> milestones = List.of(1_000_000, 2_000_000, 5_000_000);
        int texts = 8_000;
        int queryCount = 300;
        int passes = 1;
        double minFreeGb = 14;
        int indexingThreads = 0;
        int measureOnly = 0;
        double segmentsPerTier = 0;
        EmbeddingModel model = EmbeddingModel.defaultModel();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--data" -> data = Path.of(args[++i]);
                case "--work" -> work = Path.of(args[++i]);
                case "--passages" -> passages = Integer.parseInt(args[++i]);
                case "--scopes" -> scopes = Integer.parseInt(args[++i]);
                case "--milestones" -> milestones = Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
                case "--texts" -> texts = Integer.parseInt(args[++i]);
                case "--queries" -> queryCount = Integer.parseInt(args[++i]);
                case "--passes" -> passes = Integer.parseInt(args[++i]);
                case "--min-free-gb" -> minFreeGb = Double.parseDouble(args[++i]);
                case "--indexing-threads" -> indexingThreads = Integer.parseInt(args[++i]);
                case "--model" -> model = EmbeddingModel.byName(args[++i]);
                case "--measure-only" -> measureOnly = Integer.parseInt(args[++i]);
                case "--segments-per-tier" -> segmentsPerTier = Double.parseDouble(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (work == null) {
            throw new IllegalArgumentException("--work DIR is required: the store, the index and the kept vectors go there");
        }
        Files.createDirectories(work);
        List<String> textList = ScaleCorpus.primeTo(BenchData.loadPassages(data, texts), scopes);
        List<String> queryTexts = BenchData.loadQueries(data, queryCount);
        ScaleCorpus corpus = ScaleCorpus.embedOrLoad(model, textList, queryTexts, work.resolve("vectors.bin"));
        Options options = new Options(work, passages, scopes, milestones, passes, Duration.ofSeconds(3),
                (long) (minFreeGb * 1e9), 100_000, indexingThreads);
        if (measureOnly < 0) {
            throw new IllegalArgumentException("--measure-only takes a positive number of rounds, got " + measureOnly);
        }
        ScaleSearch bench = new ScaleSearch(options, corpus, queryTexts, System.out);
        bench.segmentsPerTier = segmentsPerTier;
        if (measureOnly > 0) {
            bench.measureExisting(measureOnly);
        } else {
            bench.run();
        }
    }

    /**
     * Measures the store and the index a finished run left in the work directory, {@code rounds} times, without adding
     * anything, then closes and opens them again. Refuses a directory without them, or whose first scope does not hold
     * the passages {@code --passages} over {@code --scopes} puts there (a run stopped early, other options).
     */
    void measureExisting(int rounds) throws IOException {
        Path storeFile = options.work().resolve("memory.db");
        Path index = options.work().resolve("index");
        if (!Files.exists(storeFile) || !Files.isDirectory(index)) {
            throw new IllegalArgumentException("--measure-only needs the store and the index of a finished run in "
                    + options.work() + ": " + storeFile + " or " + index + " is missing");
        }
        int done = options.passages();
        long expected = done / options.scopes() + (done % options.scopes() > 0 ? 1 : 0);
        try (MemoryStore store = MemoryStore.sqlite(storeFile);
                LuceneMemorySearch search = LuceneMemorySearch.builder(store, corpus.embedder()).directory(index).build()) {
            long held = store.stats(scope(0)).archivalEntries();
            if (held != expected) {
                throw new IllegalArgumentException("the store in " + options.work() + " holds " + held + " passages in its "
                        + "first scope where " + done + " over " + options.scopes() + " scopes put " + expected
                        + ": give the --passages and --scopes of the run that built it");
            }
            search.awaitIndexed();
            for (int r = 1; r <= rounds; r++) {
                out.printf(Locale.ROOT, "%n== measured at %,d passages, round %d of %d (nothing added)%n", done, r, rounds);
                measure(store, search, index, done);
            }
        }
        reopen(storeFile, index, done);
    }

    /** Builds to every milestone in turn, measuring at each, then closes and opens the index again. */
    void run() throws IOException {
        Path work = options.work();
        Files.createDirectories(work);
        Path storeFile = work.resolve("memory.db");
        Path index = work.resolve("index");
        out.printf(Locale.ROOT, "scale search: %,d passages over %,d scopes, milestones %s, indexing threads %s; %,d texts, %d queries x %d passes; "
                + "max heap %d MB, %d processors; work dir %s%n", options.passages(), options.scopes(), options.milestones(),
                options.indexingThreads() == 0 ? "default" : options.indexingThreads(), corpus.texts().size(), queries.size(), options.passes(), Runtime.getRuntime().maxMemory() >> 20,
                Runtime.getRuntime().availableProcessors(), work);
        if (segmentsPerTier > 0) {
            out.printf(Locale.ROOT, "merge policy: %s segments per tier%n", segmentsPerTier);
        }
        long buildNanos = 0;
        int done = 0;
        long lastNanos = 0;
        int lastDone = 0;
        boolean stopped = false;
        try (MemoryStore store = MemoryStore.sqlite(storeFile);
                LuceneMemorySearch search = withThreads(LuceneMemorySearch.builder(store, corpus.embedder())).directory(index)
                        .batchEvents(2_048).backgroundInterval(Duration.ofMillis(250)).build()) {
            for (int milestone : options.milestones()) {
                long start = System.nanoTime();
                while (done < milestone) {
                    long free = Files.getFileStore(work).getUsableSpace();
                    if (free < options.minFreeBytes()) {
                        out.printf(Locale.ROOT, "%nstopped adding passages at %,d: free disk %.1f GB is under the floor of %.1f GB%n",
                                done, free / 1e9, options.minFreeBytes() / 1e9);
                        stopped = true;
                        break;
                    }
                    int to = Math.min(milestone, done + options.chunk());
                    insert(store, done, to);
                    done = to;
                }
                search.awaitIndexed();
                buildNanos += System.nanoTime() - start;
                report(store, search, index, done, buildNanos, done - lastDone, buildNanos - lastNanos);
                lastDone = done;
                lastNanos = buildNanos;
                if (stopped) {
                    break;
                }
            }
        }
        reopen(storeFile, index, done);
    }

    private LuceneMemorySearch.Builder withThreads(LuceneMemorySearch.Builder builder) {
        if (segmentsPerTier > 0) {
            builder.segmentsPerTier(segmentsPerTier);
        }
        return options.indexingThreads() == 0 ? builder : builder.indexingThreads(options.indexingThreads());
    }

    /** Passages {@code from} (inclusive) to {@code to} in one transaction, each scope's in one call. */
    private void insert(MemoryStore store, int from, int to) {
        Map<Integer, List<NewArchivalEntry>> byScope = new HashMap<>();
        for (int i = from; i < to; i++) {
            byScope.computeIfAbsent(i % options.scopes(), s -> new ArrayList<>()).add(NewArchivalEntry.of(corpus.text(i)));
        }
        store.useTransaction(tx -> byScope.forEach((s, entries) -> tx.archival().insertAll(scope(s), entries)));
    }

    private static Scope scope(int s) {
        return Scope.of("user" + s, "agent");
    }

    private void report(MemoryStore store, LuceneMemorySearch search, Path index, int done, long buildNanos, int added,
            long addedNanos) throws IOException {
        out.printf(Locale.ROOT, "%n== milestone %,d passages%n", done);
        out.printf(Locale.ROOT, "build: %.0f s (store and index, measurements excluded), %.0f passages/s overall, "
                + "%.0f passages/s since the last milestone%n", buildNanos / 1e9, done / (buildNanos / 1e9),
                added / Math.max(1e-9, addedNanos / 1e9));
        measure(store, search, index, done);
    }

    /** A milestone's measurements: sizes on disk, heap, the queries beside bare Lucene, k-NN recall. */
    private void measure(MemoryStore store, LuceneMemorySearch search, Path index, int done) throws IOException {
        int segments = 0;
        try (FSDirectory directory = FSDirectory.open(index)) {
            if (DirectoryReader.indexExists(directory)) {
                try (DirectoryReader reader = DirectoryReader.open(directory)) {
                    segments = reader.leaves().size();
                }
            }
        }
        out.printf(Locale.ROOT, "disk: index %.2f GB in %d segments, store %.2f GB, free %.1f GB%n", BenchData.bytesOnDisk(index) / 1e9, segments,
                storeSize() / 1e9, Files.getFileStore(options.work()).getUsableSpace() / 1e9);
        out.printf(Locale.ROOT, "heap after GC: %d MB (max %d MB)%n", heapAfterGc() >> 20, Runtime.getRuntime().maxMemory() >> 20);
        if (done == 0) {
            out.printf(Locale.ROOT, "no passages: nothing to search%n");
            return;
        }
        Random pick = new Random(5 + done);
        int scopes = Math.min(options.scopes(), done);
        out.printf(Locale.ROOT, "%-40s %9s %9s%n", "query (k=10, scoped; ms)", "p50", "p99");
        for (SearchMode mode : SearchMode.values()) {
            time("engram " + mode.name().toLowerCase(Locale.ROOT), q -> search.search(SearchRequest.builder(scope(pick.nextInt(scopes)),
                    queries.get(q)).mode(mode).domains(SearchDomain.ARCHIVAL).build()));
        }
        LuceneLimits.measure(index, queries, corpus::query, scopes, this::time);
        recall(search, done, scopes);
    }

    /** Opens the store and the index {@link #run} built and closed, timing that and the first query. */
    private void reopen(Path storeFile, Path index, int done) throws IOException {
        out.printf(Locale.ROOT, "%n== reopened at %,d passages%n", done);
        long t0 = System.nanoTime();
        try (MemoryStore store = MemoryStore.sqlite(storeFile)) {
            long t1 = System.nanoTime();
            try (LuceneMemorySearch search = LuceneMemorySearch.builder(store, corpus.embedder()).directory(index).build()) {
                long t2 = System.nanoTime();
                List<SearchHit> hits = search.search(SearchRequest.builder(scope(0), queries.getFirst()).mode(SearchMode.HYBRID)
                        .domains(SearchDomain.ARCHIVAL).build());
                long t3 = System.nanoTime();
                out.printf(Locale.ROOT, "open: store %.0f ms, index %.0f ms; first hybrid query %.1f ms (%d hits); "
                        + "heap after GC %d MB%n", (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6, hits.size(), heapAfterGc() >> 20);
            }
        }
    }

    /** The vector mode's recall@10 against brute force over the scope's own vectors, on up to 100 queries. */
    private void recall(LuceneMemorySearch search, int done, int scopes) {
        Random pick = new Random(9);
        double total = 0;
        int count = Math.min(100, queries.size());
        for (int q = 0; q < count; q++) {
            int s = pick.nextInt(scopes);
            Set<Integer> got = new HashSet<>();
            for (SearchHit h : search.search(SearchRequest.builder(scope(s), queries.get(q)).mode(SearchMode.VECTOR)
                    .domains(SearchDomain.ARCHIVAL).k(10).build())) {
                got.add(BenchData.passageId(h.text()));
            }
            float[] qv = corpus.query(queries.get(q));
            List<double[]> all = new ArrayList<>();
            for (int i = s; i < done; i += options.scopes()) {
                all.add(new double[] {BenchData.dot(qv, corpus.vector(i)), i});
            }
            all.sort((a, b) -> Double.compare(b[0], a[0]));
            total += all.subList(0, Math.min(10, all.size())).stream().filter(e -> got.contains((int) e[1])).count()
                    / (double) Math.min(10, all.size());
        }
        out.printf(Locale.ROOT, "%-40s %9.4f%n", "engram vector recall@10 vs exact", total / count);
    }

    private void time(String name, LuceneLimits.Work work) throws IOException {
        long warmUntil = System.nanoTime() + options.warmUp().toNanos();
        for (int i = 0; i < queries.size() || System.nanoTime() < warmUntil; i++) {
            work.run(i % queries.size());
        }
        long[] nanos = new long[queries.size() * options.passes()];
        for (int i = 0; i < nanos.length; i++) {
            long t = System.nanoTime();
            work.run(i % queries.size());
            nanos[i] = System.nanoTime() - t;
        }
        Arrays.sort(nanos);
        out.printf(Locale.ROOT, "%-40s %9.3f %9.3f%n", name, nanos[nanos.length / 2] / 1e6,
                nanos[(int) (nanos.length * 0.99)] / 1e6);
        out.flush();
    }

    private long heapAfterGc() {
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    private long storeSize() throws IOException {
        long bytes = 0;
        for (String suffix : List.of("", "-wal", "-shm")) {
            Path f = options.work().resolve("memory.db" + suffix);
            bytes += Files.isRegularFile(f) ? Files.size(f) : 0;
        }
        return bytes;
    }
}
