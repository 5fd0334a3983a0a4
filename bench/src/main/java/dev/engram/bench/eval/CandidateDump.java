package dev.engram.bench.eval;

import dev.engram.memory.MemorySearch;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Each question's raw retriever scores, for studying a fusion outside the index: for every question of LoCoMo (dev
 * conversations) or SciFact (train queries), the BM25 and the vector search's deep lists (up to {@link #DEPTH} hits
 * each, with their scores) and the question's relevant items. A fusion computed from these lists (min-max over the top
 * candidates, with or without completion, other weights) gives the same ranking the index gives, so fusion variants are
 * compared in seconds ({@code bench/retrieval-fusion.py}).
 *
 * <p>Lines, tab-separated: {@code Q group id category relevant...} for a question (relevant as {@code item=grade}), then
 * {@code B|V rank item score} for each hit of its BM25 and vector lists.
 */
public final class CandidateDump {
    /** How deep each list goes: a whole LoCoMo conversation, a fifth of SciFact. */
    public static final int DEPTH = 1_000;

    private CandidateDump() {
    }

    /** Dumps LoCoMo's questions and their lists; items are turn ids ({@code D1:3}). */
    public static void loCoMo(Path file, EvalSetup setup, LoCoMoEval.TurnFormat format, Path out) {
        try (LoCoMoCorpus corpus = LoCoMoCorpus.load(file, format, Set.of());
                MemorySearch search = setup.openSearch(corpus.store);
                BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            search.reindex((d, t) -> { });
            int n = 0;
            for (LoCoMoCorpus.Question q : corpus.questions) {
                if (q.evidence().isEmpty() || q.text().isBlank()) {
                    continue;
                }
                w.write("Q\t" + q.scope().agentId() + "\t" + n++ + "\t" + q.category() + "\t"
                        + String.join(" ", q.evidence().stream().sorted().map(e -> e + "=1").toList()) + "\n");
                Map<Long, String> ids = corpus.turnOf.get(q.scope());
                for (SearchMode mode : List.of(SearchMode.BM25, SearchMode.VECTOR)) {
                    List<SearchHit> hits = search.search(SearchRequest.builder(q.scope(), q.text())
                            .domains(SearchDomain.CONVERSATIONS).k(DEPTH).mode(mode).fusion(setup.fusion()).build());
                    write(w, mode, hits, h -> ids.get(Long.parseLong(h.id())));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + out, e);
        }
    }

    /** Dumps SciFact's judged queries and their lists; items are corpus ids. */
    public static void sciFact(Path dataset, Path qrels, EvalSetup setup, Path out) {
        SciFactEval.Loaded loaded = SciFactEval.load(dataset, qrels);
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            SciFactEval.withIndex(loaded, setup, (d, t) -> { }, (search, docOf) -> {
                for (Map.Entry<String, Map<String, Integer>> q : loaded.judged().entrySet()) {
                    w.write("Q\t" + q.getKey() + "\t" + q.getKey() + "\t0\t" + String.join(" ", q.getValue().entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue()).toList()) + "\n");
                    for (SearchMode mode : List.of(SearchMode.BM25, SearchMode.VECTOR)) {
                        List<SearchHit> hits = search.search(SearchRequest.builder(SciFactEval.SCOPE,
                                loaded.queries().get(q.getKey())).domains(SearchDomain.ARCHIVAL).k(DEPTH).mode(mode)
                                .fusion(setup.fusion()).build());
                        write(w, mode, hits, h -> docOf.get(h.id()));
                    }
                }
                return null;
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + out, e);
        }
    }

    private static void write(BufferedWriter w, SearchMode mode, List<SearchHit> hits,
            java.util.function.Function<SearchHit, String> item) throws IOException {
        String tag = mode == SearchMode.BM25 ? "B" : "V";
        for (int i = 0; i < hits.size(); i++) {
            w.write(tag + "\t" + (i + 1) + "\t" + item.apply(hits.get(i)) + "\t" + hits.get(i).score() + "\n");
        }
    }
}
