package dev.engram.bench;

import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Metadata;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.lucene.LuceneMemorySearch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * What a metadata filter costs a search, against the same search without one, in the same run: one scope of
 * {@code --entries} archival entries (synthetic text from a 2,000-word vocabulary, metadata with a project of ten and
 * a priority of five values), searched by 3-word queries in BM25 and hybrid mode, k = 10. Vectors come from a
 * word-hashing stand-in (no model runs here), so the k-NN part measures Lucene's work, not the embedder's. Usage:
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.engram.bench.FilterCost [--entries 20000] [--queries 400] [--sqlite]
 * </pre>
 */
public final class FilterCost {
    private FilterCost() {
    }

    public static void main(String[] args) throws Exception {
        int entries = 20_000;
        int queries = 400;
        boolean sqlite = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--entries" -> entries = Integer.parseInt(args[++i]);
                case "--queries" -> queries = Integer.parseInt(args[++i]);
                case "--sqlite" -> sqlite = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        Random random = new Random(42);
        String[] words = new String[2_000];
        for (int i = 0; i < words.length; i++) {
            words[i] = word(random);
        }
        Path dir = Files.createTempDirectory("filter-cost");
        Scope scope = Scope.of("ana", "helper");
        try (MemoryStore store = sqlite ? MemoryStore.sqlite(dir.resolve("memory.db")) : MemoryStore.inMemory();
                MemorySearch search = LuceneMemorySearch.builder(store, new HashEmbedder()).backgroundInterval(Duration.ZERO).build()) {
            List<NewArchivalEntry> batch = new ArrayList<>();
            for (int i = 0; i < entries; i++) {
                StringBuilder text = new StringBuilder();
                for (int w = 0; w < 20; w++) {
                    text.append(words[(int) Math.min(words.length - 1, Math.abs(random.nextGaussian()) * 400)]).append(' ');
                }
                batch.add(NewArchivalEntry.of(text.toString().strip()).withMetadata(Metadata.of(Map.of(
                        "project", "p" + (i % 10), "priority", 1 + i % 5))));
                if (batch.size() == 1_000) {
                    store.archival().insertAll(scope, batch);
                    batch.clear();
                }
            }
            store.archival().insertAll(scope, batch);
            long start = System.nanoTime();
            search.awaitIndexed();
            System.out.printf(Locale.ROOT, "%d entries (%s), indexed in %.1f s%n", entries, sqlite ? "SQLite" : "in memory",
                    (System.nanoTime() - start) / 1e9);
            List<String> qs = new ArrayList<>();
            for (int i = 0; i < queries; i++) {
                qs.add(words[random.nextInt(600)] + " " + words[random.nextInt(600)] + " " + words[random.nextInt(600)]);
            }
            String[][] filters = {
                    {"no filter", "{}"},
                    {"project = p3 (10 %)", "{\"project\": \"p3\"}"},
                    {"AND project in 2, priority >= 2 (20 %)", "{\"AND\": [{\"project\": {\"in\": [\"p1\", \"p2\"]}}, {\"priority\": {\"gte\": 2}}]}"},
                    {"NOT project = p3 (90 %)", "{\"NOT\": {\"project\": \"p3\"}}"},
            };
            System.out.println("mode    filter                                     p50 ms   p95 ms   hits/query");
            for (SearchMode mode : List.of(SearchMode.BM25, SearchMode.HYBRID)) {
                for (String[] f : filters) {
                    run(search, scope, qs, mode, f[1], 100); // warm-up
                    double[] times = run(search, scope, qs, mode, f[1], qs.size());
                    double hits = hits(search, scope, qs, mode, f[1]);
                    Arrays.sort(times);
                    System.out.printf(Locale.ROOT, "%-7s %-42s %6.2f   %6.2f   %.1f%n", mode.name().toLowerCase(Locale.ROOT), f[0],
                            times[times.length / 2], times[(int) (times.length * 0.95)], hits);
                }
            }
        }
    }

    private static double[] run(MemorySearch search, Scope scope, List<String> qs, SearchMode mode, String filter, int n) {
        double[] out = new double[n];
        for (int i = 0; i < n; i++) {
            SearchRequest request = SearchRequest.builder(scope, qs.get(i % qs.size())).mode(mode).k(10).filter(filter).build();
            long t = System.nanoTime();
            search.search(request);
            out[i] = (System.nanoTime() - t) / 1e6;
        }
        return out;
    }

    private static double hits(MemorySearch search, Scope scope, List<String> qs, SearchMode mode, String filter) {
        long total = 0;
        for (String q : qs) {
            total += search.search(SearchRequest.builder(scope, q).mode(mode).k(10).filter(filter).build()).size();
        }
        return (double) total / qs.size();
    }

    private static String word(Random random) {
        char[] c = new char[4 + random.nextInt(5)];
        for (int i = 0; i < c.length; i++) {
            c[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(c);
    }

    /** Each word adds one to a dimension chosen by its hash; unit length. */
    private static final class HashEmbedder implements Embedder {
        @Override
        public String id() {
            return "hash-128";
        }

        @Override
        public int dimensions() {
            return 128;
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            List<float[]> out = new ArrayList<>(texts.size());
            for (String text : texts) {
                float[] v = new float[128];
                for (String w : text.split(" ")) {
                    v[Math.floorMod(w.hashCode(), 128)] += 1f;
                }
                double norm = 0;
                for (float x : v) {
                    norm += x * x;
                }
                for (int i = 0; i < v.length; i++) {
                    v[i] = (float) (v[i] / Math.sqrt(Math.max(norm, 1e-9)));
                }
                out.add(v);
            }
            return out;
        }
    }
}
