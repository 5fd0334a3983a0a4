package dev.engram.bench.eval;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * BEIR-format retrieval evaluation (built for SciFact): the corpus is inserted as archival entries of
 * one scope ("title" and "text" joined), every judged query is searched, and nDCG@10 and recall@100
 * are averaged over the queries of the qrels file; next to them, what retrieval costs ({@link RetrievalCost}): the
 * context tokens of the top 10 hits and the latency of each search.
 */
public final class SciFactEval {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    static final Scope SCOPE = Scope.of("beir", "corpus");

    /** One mode's figures; its cost counts the tokens of the 10 hits nDCG@10 reads. */
    public record Result(SearchMode mode, int queries, double ndcgAt10, double recallAt100, RetrievalCost cost) {
    }

    /** The figures of every mode, and how long indexing took. */
    public record Report(int documents, int queries, double indexSeconds, List<Result> results) {
    }

    private SciFactEval() {
    }

    /**
     * Runs the evaluation.
     *
     * @param dataset a BEIR directory with {@code corpus.jsonl} and {@code queries.jsonl}
     * @param qrels   a qrels TSV ({@code query-id, corpus-id, score} with a header line)
     */
    public static Report run(Path dataset, Path qrels, EvalSetup setup, MemorySearch.ProgressListener progress) {
        Loaded loaded = load(dataset, qrels);
        Map<String, Map<String, Integer>> judged = loaded.judged();
        long start = System.nanoTime();
        return withIndex(loaded, setup, progress, (search, docOf) -> {
            double indexSeconds = (System.nanoTime() - start) / 1e9;
            List<Result> results = new ArrayList<>();
            for (SearchMode mode : setup.orderedModes()) {
                double ndcg = 0;
                double recall = 0;
                RetrievalCost.Meter meter = new RetrievalCost.Meter(10, 100);
                for (Map.Entry<String, Map<String, Integer>> q : judged.entrySet()) {
                    long began = System.nanoTime();
                    List<SearchHit> hits = search.search(SearchRequest.builder(SCOPE, loaded.queries().get(q.getKey()))
                            .domains(SearchDomain.ARCHIVAL).k(100).mode(mode).fusion(setup.fusion()).build());
                    meter.record(hits, System.nanoTime() - began);
                    List<String> ranked = hits.stream().map(h -> docOf.get(h.id())).toList();
                    double one = Metrics.ndcg(ranked, q.getValue(), 10);
                    setup.perQuestion().record(mode, q.getKey(), 0, one);
                    ndcg += one;
                    recall += Metrics.recall(ranked, q.getValue().entrySet().stream()
                            .filter(e -> e.getValue() > 0).map(Map.Entry::getKey).toList(), 100);
                }
                results.add(new Result(mode, judged.size(), ndcg / judged.size(), recall / judged.size(), meter.result()));
            }
            return new Report(loaded.corpus().size(), judged.size(), indexSeconds, results);
        });
    }

    /** A BEIR set read: the corpus (id to "title\ntext"), the queries, and the judged queries' graded documents. */
    record Loaded(Map<String, String> corpus, Map<String, String> queries, Map<String, Map<String, Integer>> judged) {
    }

    /** What runs against the indexed corpus: the search, and each archival entry's corpus id by entry id. */
    @FunctionalInterface
    interface Indexed<T> {
        T run(MemorySearch search, Map<String, String> docOf) throws IOException;
    }

    static Loaded load(Path dataset, Path qrels) {
        Map<String, String> corpus = readCorpus(dataset.resolve("corpus.jsonl"));
        Map<String, String> queries = readQueries(dataset.resolve("queries.jsonl"));
        Map<String, Map<String, Integer>> judged = readQrels(qrels);
        judged.keySet().retainAll(queries.keySet());
        if (judged.isEmpty()) {
            throw new IllegalArgumentException("no query of " + qrels + " is in " + dataset.resolve("queries.jsonl"));
        }
        return new Loaded(corpus, queries, judged);
    }

    /** Inserts the corpus as archival entries of {@link #SCOPE} in a new in-memory store, indexes it, and runs {@code body}. */
    static <T> T withIndex(Loaded loaded, EvalSetup setup, MemorySearch.ProgressListener progress, Indexed<T> body) {
        try (MemoryStore store = MemoryStore.inMemory()) {
            Map<String, String> docOf = new HashMap<>();
            List<Map.Entry<String, String>> docs = new ArrayList<>(loaded.corpus().entrySet());
            for (int from = 0; from < docs.size(); from += 1_000) {
                List<Map.Entry<String, String>> slice = docs.subList(from, Math.min(docs.size(), from + 1_000));
                List<ArchivalEntry> inserted = store.archival().insertAll(SCOPE, slice.stream()
                        .map(d -> new NewArchivalEntry(Optional.empty(), d.getValue(), List.of())).toList());
                for (int i = 0; i < slice.size(); i++) {
                    docOf.put(inserted.get(i).id(), slice.get(i).getKey());
                }
            }
            try (MemorySearch search = setup.openSearch(store)) {
                search.reindex(progress);
                return body.run(search, docOf);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    static Map<String, String> readCorpus(Path file) {
        Map<String, String> out = new LinkedHashMap<>();
        forEachJson(file, n -> {
            String title = n.path("title").asString("");
            String text = n.path("text").asString("");
            out.put(n.path("_id").asString(), title.isBlank() ? text : title + "\n" + text);
        });
        return out;
    }

    static Map<String, String> readQueries(Path file) {
        Map<String, String> out = new LinkedHashMap<>();
        forEachJson(file, n -> out.put(n.path("_id").asString(), n.path("text").asString()));
        return out;
    }

    static Map<String, Map<String, Integer>> readQrels(Path file) {
        Map<String, Map<String, Integer>> out = new LinkedHashMap<>();
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (String line : lines) {
                String[] parts = line.split("\t");
                if (parts.length < 3 || parts[0].equals("query-id")) {
                    continue;
                }
                out.computeIfAbsent(parts[0], k -> new LinkedHashMap<>()).put(parts[1], Integer.parseInt(parts[2].trim()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read qrels " + file, e);
        }
        return out;
    }

    private static void forEachJson(Path file, java.util.function.Consumer<JsonNode> action) {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.isBlank()) {
                    action.accept(MAPPER.readTree(line));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
