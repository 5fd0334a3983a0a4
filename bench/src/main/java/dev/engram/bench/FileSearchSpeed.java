package dev.engram.bench;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolContext;
import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.FileLimits;
import dev.engram.memory.FileStatus;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.FolderStore;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Metadata;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.tools.BuiltinTools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.FSDirectory;

/**
 * Search latency over a folder of {@code --chunks} uploaded passages (10,000 by default, in {@code --files} files) attached
 * to an agent: p50/p99 of the agent's {@code semantic_search_files} (the tool's whole work: the attached folders and
 * files read, a hybrid search of the folder with the query embedded, the passages looked up and formatted), of the
 * hybrid search alone, and of bare Lucene on the same index (BM25 over the text and a k-NN query of the precomputed
 * query vector, each filtered to the folder), in turns for {@code --rounds} rounds. The store and index are built in
 * {@code --work DIR} when it holds none (embedding every passage: minutes), then reused. Usage:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -Dai.djl.offline=true \
 *      -cp bench/target/benchmarks.jar dev.engram.bench.FileSearchSpeed --work DIR [--chunks 10000] [--files 20] \
 *      [--queries 100] [--rounds 3] [--model minilm|bge-small]
 * </pre>
 */
public final class FileSearchSpeed {
    private static final String[] WORDS = ("boiler pressure valve burner filter gauge water heat pump thermostat radiator "
            + "pipe flow safety service annual check replace clean install manual chapter section lever switch system "
            + "temperature supply return circuit drain vent seal flue ignition condensate expansion vessel").split(" ");
    private static final String USER = "bench";
    private static final Scope AGENT = Scope.of(USER, "reader");

    private FileSearchSpeed() {
    }

    /** One query's work, by its index. */
    private interface Work {
        void run(int query) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Path work = null;
        int chunks = 10_000;
        int files = 20;
        int queries = 100;
        int rounds = 3;
        EmbeddingModel model = EmbeddingModel.ALL_MINILM_L6_V2_Q;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--work" -> work = Path.of(args[++i]);
                case "--chunks" -> chunks = Integer.parseInt(args[++i]);
                case "--files" -> files = Integer.parseInt(args[++i]);
                case "--queries" -> queries = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--model" -> model = args[++i].startsWith("minilm") ? EmbeddingModel.ALL_MINILM_L6_V2_Q
                        : EmbeddingModel.BGE_SMALL_EN_V15_Q;
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "; use --work DIR, --chunks N, "
                        + "--files N, --queries N, --rounds N, --model minilm|bge-small");
            }
        }
        if (work == null) {
            work = Files.createTempDirectory("engram-file-search");
        }
        Files.createDirectories(work);
        Random random = new Random(7);
        // distinct queries for the warm-up and for each measurement, so that no query's embedding comes from the cache
        List<String> qs = new ArrayList<>();
        for (int q = 0; q < queries * (2 * rounds + 1) + 20; q++) {
            qs.add(sentence(random));
        }
        int n = queries;
        try (Embedder embedder = OnnxEmbedder.builder(model).threads(2).build();
                MemoryStore store = MemoryStore.sqlite(work.resolve("memory.db"));
                LuceneMemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(work.resolve("index")).build()) {
            Folder folder = store.folders().byName(USER, "manuals").orElse(null);
            if (folder == null) {
                folder = build(store, chunks, files);
                long t = System.nanoTime();
                search.awaitIndexed();
                System.out.printf(Locale.ROOT, "built %d passages in %d files; indexed (embedded) in %.1f s%n", chunks, files,
                        (System.nanoTime() - t) / 1e9);
            } else {
                search.awaitIndexed();
            }
            long passages = store.folders().countPassages(USER, folder.id());
            System.out.printf(Locale.ROOT, "folder of %d passages, model %s, %d queries x %d rounds%n", passages,
                    model.shortName(), queries, rounds);
            DynamicTool tool = BuiltinTools.lettaFiles(store, search, s -> FileLimits.forContextWindow(0)).stream()
                    .filter(t -> t.name().equals("semantic_search_files")).findFirst().orElseThrow();
            ToolContext ctx = ToolContext.builder().userId(USER).agentId(AGENT.agentId()).build();
            List<String> inFolder = List.of(folder.id());
            String scopeTerm = USER + '\u0000' + folder.id() + '\u0000' + SearchDomain.FILES.key();
            Analyzer analyzer = new EnglishAnalyzer();
            System.out.printf(Locale.ROOT, "%-5s %-44s %9s %9s%n", "round", "query (k=5, the folder; ms)", "p50", "p99");
            for (int i = 0; i < 20; i++) {
                tool.run("{\"query\": \"" + qs.get(qs.size() - 1 - i) + "\", \"limit\": 5}", ctx); // warm-up
            }
            for (int r = 1; r <= rounds; r++) {
                int round = r;
                int toolSet = (2 * r - 2) * n;
                int searchSet = (2 * r - 1) * n;
                time(round, "semantic_search_files (the tool)", n, q -> tool.run(
                        "{\"query\": \"" + qs.get(toolSet + q) + "\", \"limit\": 5}", ctx));
                time(round, "engram hybrid search, query embedded", n, q -> search.search(
                        SearchRequest.builder(AGENT, qs.get(searchSet + q)).domains(SearchDomain.FILES).folders(inFolder).k(5)
                                .build()));
                List<float[]> vectors = embedder.embed(qs.subList(searchSet, searchSet + n)); // after the timed search
                try (FSDirectory dir = FSDirectory.open(work.resolve("index")); DirectoryReader reader = DirectoryReader.open(dir)) {
                    IndexSearcher searcher = new IndexSearcher(reader);
                    Query filter = new TermQuery(new Term("scope_domain", scopeTerm));
                    time(round, "bare lucene bm25 + knn (vector given)", n, q -> {
                        searcher.search(new BooleanQuery.Builder().add(words(analyzer, qs.get(searchSet + q)),
                                BooleanClause.Occur.MUST).add(filter, BooleanClause.Occur.FILTER).build(), 50);
                        searcher.search(new KnnFloatVectorQuery("vector", vectors.get(q), 50, filter), 50);
                    });
                }
            }
            System.out.println("work directory (reuse with --work): " + work);
        }
    }

    private static Folder build(MemoryStore store, int chunks, int files) {
        FolderStore folders = store.folders();
        Folder folder = folders.create(USER, "manuals", "", "", Metadata.empty());
        store.agents().create(AGENT, "reader", "{}");
        Random random = new Random(42);
        int perFile = (chunks + files - 1) / files;
        for (int f = 0, done = 0; f < files && done < chunks; f++) {
            List<String> texts = new ArrayList<>();
            for (int c = 0; c < perFile && done < chunks; c++, done++) {
                texts.add(sentence(random) + " " + sentence(random) + " " + sentence(random));
            }
            String text = String.join("\n", texts);
            FolderFile file = folders.addFile(USER, folder.id(), "manuals/part-" + f + ".md", "part-" + f + ".md",
                    "text/markdown", text.length());
            folders.text(USER, file.id(), text, texts.size());
            for (int from = 0; from < texts.size(); from += 500) {
                folders.addPassages(USER, file.id(), texts.subList(from, Math.min(texts.size(), from + 500)));
            }
            folders.embedded(USER, file.id(), texts.size());
            folders.status(USER, file.id(), FileStatus.COMPLETED);
        }
        folders.agents().attach(AGENT, folder.id(), FileLimits.forContextWindow(0));
        return folder;
    }

    private static Query words(Analyzer analyzer, String text) throws IOException {
        BooleanQuery.Builder words = new BooleanQuery.Builder();
        try (TokenStream ts = analyzer.tokenStream("text", text)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                words.add(new TermQuery(new Term("text", term.toString())), BooleanClause.Occur.SHOULD);
            }
            ts.end();
        }
        return words.build();
    }

    private static void time(int round, String name, int n, Work work) throws Exception {
        long[] nanos = new long[n];
        for (int i = 0; i < n; i++) {
            long t = System.nanoTime();
            work.run(i);
            nanos[i] = System.nanoTime() - t;
        }
        Arrays.sort(nanos);
        System.out.printf(Locale.ROOT, "%-5d %-44s %9.3f %9.3f%n", round, name, nanos[n / 2] / 1e6,
                nanos[Math.min(n - 1, (int) (n * 0.99))] / 1e6);
    }

    private static String sentence(Random random) {
        List<String> words = new ArrayList<>();
        for (int i = 0, k = 6 + random.nextInt(6); i < k; i++) {
            words.add(WORDS[random.nextInt(WORDS.length)]);
        }
        String s = String.join(" ", words);
        return Character.toUpperCase(s.charAt(0)) + s.substring(1) + ".";
    }
}
