package dev.engram.memory.lucene;

import static dev.engram.memory.lucene.LuceneDocuments.CONTENT;
import static dev.engram.memory.lucene.LuceneDocuments.NAMES;
import static dev.engram.memory.lucene.LuceneDocuments.SUPERSEDED;
import static dev.engram.memory.lucene.LuceneDocuments.TEXT;
import static dev.engram.memory.lucene.LuceneDocuments.TITLE;
import static dev.engram.memory.lucene.LuceneDocuments.VECTOR;

import dev.engram.memory.Fusion;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.spi.Columns;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;
import java.util.function.IntToDoubleFunction;
import java.util.stream.Stream;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TermStates;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopScoreDocCollectorManager;

/**
 * Answers a {@link SearchRequest} from an index searcher: BM25 over the analysed text, k-NN over the
 * embeddings (exact for small scopes, HNSW otherwise), both inside one filter for scope, domains,
 * time, tags and roles, fused by reciprocal rank or weighted normalised scores.
 */
final class LuceneRetriever implements AutoCloseable {
    private final Analyzer analyzer;
    private final EmbedderWatch embedder;
    private final int candidates;
    private final int exactVectorSearchUpTo;
    private final double nameWeight;
    private final double titleWeight;
    private final Tuning tuning;
    /**
     * The largest scope (documents) whose BM25 matches a weighted hybrid search scores all in one pass, instead of the
     * best of them and a second pass for the other candidates; a larger scope is left to block-max pruning.
     */
    static final int SCORE_EVERY_MATCH_UP_TO = 5_000;
    private final int scoreEveryMatchUpTo;
    /** Runs k-NN beside BM25 in hybrid searches; as many threads as processors, so searches never queue behind indexing. */
    private final ExecutorService knnPool = Executors.newFixedThreadPool(
            Runtime.getRuntime().availableProcessors(), Thread.ofPlatform().daemon().name("engram-knn-", 0).factory());

    /**
     * How a weighted hybrid search completes its fusion.
     *
     * @param completeScores  whether a candidate one retriever found gets the other retriever's score read from the
     *                        index (instead of none), each list then normalised over all candidates
     * @param feedbackDocs    how many of the first pass's best hits move the query vector toward theirs before a
     *                        second vector search (0: none)
     * @param feedbackWeight  how far: the weight of those hits' mean vector beside the query's
     * @param lexicalDocs     how many of the first BM25 pass's best hits expand its query ({@link LexicalFeedback}; 0: none)
     * @param lexicalTerms    how many of their terms the expanded query takes
     * @param lexicalWeight   the weight of those terms beside the query's own (0 to 1)
     */
    record Tuning(boolean completeScores, int feedbackDocs, double feedbackWeight, int lexicalDocs, int lexicalTerms,
            double lexicalWeight) {
        static final Tuning NONE = new Tuning(false, 0, 0, 0, 0, 0);
    }

    LuceneRetriever(Analyzer analyzer, EmbedderWatch embedder, int candidates, int exactVectorSearchUpTo, double nameWeight,
            double titleWeight, Tuning tuning) {
        this(analyzer, embedder, candidates, exactVectorSearchUpTo, nameWeight, titleWeight, tuning, SCORE_EVERY_MATCH_UP_TO);
    }

    /** As above, scoring every BM25 match of a weighted hybrid search in scopes of up to {@code scoreEveryMatchUpTo}. */
    LuceneRetriever(Analyzer analyzer, EmbedderWatch embedder, int candidates, int exactVectorSearchUpTo, double nameWeight,
            double titleWeight, Tuning tuning, int scoreEveryMatchUpTo) {
        this.scoreEveryMatchUpTo = scoreEveryMatchUpTo;
        this.analyzer = analyzer;
        this.nameWeight = nameWeight;
        this.titleWeight = titleWeight;
        this.tuning = tuning;
        this.embedder = embedder;
        this.candidates = candidates;
        this.exactVectorSearchUpTo = exactVectorSearchUpTo;
    }

    private record Ranked(int doc, double score) {
    }

    List<SearchHit> search(IndexSearcher searcher, SearchRequest request) throws IOException {
        // The scope's documents, looked up once for every part of this search (one run of ids per segment).
        ScopeDocs scope = ScopeDocs.of(searcher, RequestFilter.scopeKeys(request));
        Query filter = RequestFilter.of(request, scope);
        int k = request.k();
        int depth = request.mode() == SearchMode.HYBRID ? Math.max(k, candidates) : k;
        // Hybrid: the query embedding and k-NN run on another thread while BM25 runs here.
        // A weighted hybrid search over a small scope keeps every score its first passes give (BM25's matches, the exact
        // scan's vectors), so that completing the other list's candidates needs no second pass over every segment.
        boolean scoreAll = request.mode() == SearchMode.HYBRID && request.fusion().kind() == Fusion.Kind.WEIGHTED
                && tuning.completeScores() && scope.size() <= scoreEveryMatchUpTo;
        CompletableFuture<Nearest> knnFuture = request.mode() == SearchMode.BM25
                ? CompletableFuture.completedFuture(new Nearest(new float[0], List.of(), null))
                : CompletableFuture.supplyAsync(() -> {
                    try {
                        return knn(searcher, request, scope, filter, Math.max(depth, candidates), depth, scoreAll);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, knnPool);
        Lexical bm25 = request.mode() == SearchMode.VECTOR ? Lexical.NONE : bm25(searcher, request.query(), filter, depth, scoreAll);
        List<Ranked> lexical = bm25.ranked();
        Nearest nearest = LuceneIndexer.join(knnFuture);
        List<Ranked> semantic;
        if (nearest == null) {
            // The embedding model is unavailable: BM25 answers alone, a vector search included.
            semantic = List.of();
            if (request.mode() == SearchMode.VECTOR) {
                lexical = bm25(searcher, request.query(), filter, k, false).ranked();
            }
        } else {
            semantic = nearest.ranked();
        }
        Fusion fusion = request.fusion();
        boolean weighted = request.mode() == SearchMode.HYBRID && fusion.kind() == Fusion.Kind.WEIGHTED;
        float[] queryVector = nearest == null ? null : nearest.query();
        if (weighted && queryVector != null && tuning.feedbackDocs() > 0 && !semantic.isEmpty()) {
            // Vector feedback: a second k-NN from the query moved toward the first pass's best hits.
            int[] best = firstPass(searcher, request, lexical, semantic).stream().limit(tuning.feedbackDocs())
                    .mapToInt(Integer::intValue).toArray();
            queryVector = CandidateScores.feedback(searcher, VECTOR, queryVector, best, tuning.feedbackWeight());
            semantic = nearestTo(searcher, request, queryVector, scope, filter, Math.max(depth, candidates), depth, null);
        }

        Map<Integer, double[]> fused = new LinkedHashMap<>();
        Map<Integer, SearchHit.Component> lexicalRank = new HashMap<>();
        Map<Integer, SearchHit.Component> semanticRank = new HashMap<>();
        record(lexical, lexicalRank);
        record(semantic, semanticRank);
        if (request.mode() != SearchMode.HYBRID) {
            for (Ranked r : lexical.isEmpty() ? semantic : lexical) {
                fused.put(r.doc(), new double[] {r.score()});
            }
        } else if (fusion.kind() == Fusion.Kind.RRF) {
            for (List<Ranked> list : List.of(lexical, semantic)) {
                for (int i = 0; i < list.size(); i++) {
                    fused.computeIfAbsent(list.get(i).doc(), d -> new double[1])[0] += 1.0 / (fusion.rrfK() + i + 1);
                }
            }
        } else {
            if (tuning.completeScores() && queryVector != null && !lexical.isEmpty() && !semantic.isEmpty()) {
                Query lexicalQuery = bm25.query();
                CandidateScores.EveryMatch every = bm25.every();
                List<Ranked> l = completed(lexical, semantic, docs -> every != null ? every.read(docs, true)
                        : CandidateScores.query(searcher, lexicalQuery, docs));
                float[] v = queryVector;
                CandidateScores.EveryMatch scanned = nearest.every() != null && nearest.every().finished()
                        && v == nearest.query() ? nearest.every() : null; // not after vector feedback moved the query
                semantic = completed(semantic, lexical, docs -> scanned != null ? scanned.read(docs, false)
                        : CandidateScores.vector(searcher, VECTOR, v, docs));
                lexical = l;
            }
            IntFunction<SearchDomain> domainOf = domains(searcher, request, lexical, semantic);
            addNormalised(lexical, doc -> fusion.ftsWeight(domainOf.apply(doc)), fused);
            addNormalised(semantic, doc -> fusion.vectorWeight(domainOf.apply(doc)), fused);
        }
        List<Map.Entry<Integer, double[]>> ordered = new ArrayList<>(fused.entrySet());
        if (request.minScore().isPresent()) {
            double min = request.minScore().get();
            ordered.removeIf(e -> e.getValue()[0] < min);
        }
        ordered.sort(Comparator.comparingDouble((Map.Entry<Integer, double[]> e) -> -e.getValue()[0])
                .thenComparingInt(Map.Entry::getKey));
        List<Map.Entry<Integer, double[]>> top = ordered.subList(0, Math.min(k, ordered.size()));
        int[] topDocs = top.stream().mapToInt(Map.Entry::getKey).sorted().toArray();
        Map<Integer, HitFields.Payload> payloads = HitFields.payloads(searcher, topDocs);
        Map<Integer, String> archives = RequestFilter.coversArchives(request) ? HitFields.archives(searcher, topDocs, request) : Map.of();
        List<SearchHit> hits = new ArrayList<>(top.size());
        for (Map.Entry<Integer, double[]> e : top) {
            HitFields.Payload p = payloads.get(e.getKey());
            hits.add(new SearchHit(p.id(), p.domain(), p.text(), Columns.instant(p.micros()), e.getValue()[0],
                    Optional.ofNullable(lexicalRank.get(e.getKey())), Optional.ofNullable(semanticRank.get(e.getKey())),
                    Optional.ofNullable(archives.get(e.getKey()))));
        }
        return hits;
    }

    /** What a k-NN search found, and the query vector it searched with. */
    private record Nearest(float[] query, List<Ranked> ranked, CandidateScores.EveryMatch every) {
    }

    /** Reads scores of chosen documents (ascending) from the index. */
    private interface ScoreReader {
        Map<Integer, Float> read(int[] docs) throws IOException;
    }

    /**
     * {@code list} with the candidates only {@code other} found added at the score this retriever gives them (read from
     * the index), best first: so that normalised over all candidates, a document just below this list's cut counts
     * for nearly as much as the list's last, not for nothing.
     */
    private static List<Ranked> completed(List<Ranked> list, List<Ranked> other, ScoreReader reader) throws IOException {
        Set<Integer> have = new HashSet<>();
        list.forEach(r -> have.add(r.doc()));
        int[] missing = other.stream().mapToInt(Ranked::doc).filter(d -> !have.contains(d)).distinct().sorted().toArray();
        if (missing.length == 0) {
            return list;
        }
        List<Ranked> out = new ArrayList<>(list);
        reader.read(missing).forEach((doc, score) -> out.add(new Ranked(doc, score)));
        out.sort(Comparator.comparingDouble((Ranked r) -> -r.score()).thenComparingInt(Ranked::doc));
        return out;
    }

    /** The documents of a first weighted fusion of the two lists, best first (for vector feedback). */
    private static List<Integer> firstPass(IndexSearcher searcher, SearchRequest request, List<Ranked> lexical,
            List<Ranked> semantic) throws IOException {
        Fusion fusion = request.fusion();
        Map<Integer, double[]> fused = new HashMap<>();
        IntFunction<SearchDomain> domainOf = domains(searcher, request, lexical, semantic);
        addNormalised(lexical, doc -> fusion.ftsWeight(domainOf.apply(doc)), fused);
        addNormalised(semantic, doc -> fusion.vectorWeight(domainOf.apply(doc)), fused);
        return fused.entrySet().stream().sorted(Comparator.comparingDouble((Map.Entry<Integer, double[]> e) -> -e.getValue()[0])
                .thenComparingInt(Map.Entry::getKey)).map(Map.Entry::getKey).toList();
    }

    private static void record(List<Ranked> list, Map<Integer, SearchHit.Component> ranks) {
        for (int i = 0; i < list.size(); i++) {
            ranks.put(list.get(i).doc(), new SearchHit.Component(i + 1, list.get(i).score()));
        }
    }

    /** Min-max normalises a list's scores to [0, 1] and adds them, each weighted by its document's weight. */
    private static void addNormalised(List<Ranked> list, IntToDoubleFunction weight, Map<Integer, double[]> fused) {
        if (list.isEmpty()) {
            return;
        }
        double max = list.get(0).score();
        double min = list.get(list.size() - 1).score();
        for (Ranked r : list) {
            double norm = max == min ? 1.0 : (r.score() - min) / (max - min);
            fused.computeIfAbsent(r.doc(), d -> new double[1])[0] += weight.applyAsDouble(r.doc()) * norm;
        }
    }

    /**
     * The domain of each candidate, where the fusion weighs domains differently: read from doc values only when the
     * request searches conversations beside another domain (otherwise every candidate has the one domain asked for).
     */
    private static IntFunction<SearchDomain> domains(IndexSearcher searcher, SearchRequest request,
            List<Ranked> lexical, List<Ranked> semantic) throws IOException {
        Fusion f = request.fusion();
        List<SearchDomain> asked = request.orderedDomains();
        boolean same = f.ftsWeight() == f.conversationFtsWeight() && f.vectorWeight() == f.conversationVectorWeight();
        if (same || asked.size() == 1 || !asked.contains(SearchDomain.CONVERSATIONS)) {
            SearchDomain one = asked.getFirst();
            return doc -> one;
        }
        int[] docs = Stream.concat(lexical.stream(), semantic.stream()).mapToInt(Ranked::doc).distinct().sorted().toArray();
        Map<Integer, SearchDomain> out = HitFields.domains(searcher, docs);
        return doc -> out.getOrDefault(doc, SearchDomain.ARCHIVAL);
    }

    /** What BM25 found, and the query it searched with (null when the text has no term). */
    private record Lexical(Query query, List<Ranked> ranked, CandidateScores.EveryMatch every) {
        static final Lexical NONE = new Lexical(null, List.of(), null);
    }

    /**
     * BM25 over the text (and the names), expanded by the first pass's best hits when {@link Tuning#lexicalDocs} is set;
     * with {@code scoreAll}, every match of the last pass is scored and kept ({@link Lexical#every}).
     */
    private Lexical bm25(IndexSearcher searcher, String text, Query filter, int depth, boolean scoreAll) throws IOException {
        List<String> queryTerms = LexicalFeedback.analyse(analyzer, TEXT, text);
        if (queryTerms.isEmpty()) {
            return Lexical.NONE;
        }
        BooleanQuery.Builder terms = new BooleanQuery.Builder();
        int max = IndexSearcher.getMaxClauseCount() - 1;
        for (String t : queryTerms.subList(0, Math.min(max, queryTerms.size()))) {
            terms.add(term(searcher, TEXT, t), BooleanClause.Occur.SHOULD);
        }
        int room = max - Math.min(max, queryTerms.size());
        room -= withTitles(searcher, terms, queryTerms, titleWeight, room);
        Query query = withNames(searcher, terms, text, nameWeight, room, filter);
        boolean last = tuning.lexicalDocs() == 0;
        CandidateScores.EveryMatch every = scoreAll && last ? CandidateScores.everyMatch(searcher, query) : null;
        List<Ranked> first = every != null ? ranked(every.top(depth)) : top(searcher, query, depth);
        if (last || first.isEmpty()) {
            return new Lexical(query, first, every);
        }
        int n = Math.min(tuning.lexicalDocs(), first.size());
        int[] best = new int[n];
        float[] scores = new float[n];
        for (int i = 0; i < n; i++) {
            best[i] = first.get(i).doc();
            scores[i] = (float) first.get(i).score();
        }
        List<LexicalFeedback.Weighted> expanded = LexicalFeedback.expand(searcher, analyzer, TEXT, CONTENT, queryTerms, best,
                scores, tuning.lexicalTerms(), tuning.lexicalWeight());
        BooleanQuery.Builder weighted = new BooleanQuery.Builder();
        List<LexicalFeedback.Weighted> kept = expanded.subList(0, Math.min(max, expanded.size()));
        for (LexicalFeedback.Weighted w : kept) {
            weighted.add(new BoostQuery(term(searcher, TEXT, w.term()), (float) w.weight()), BooleanClause.Occur.SHOULD);
        }
        // The names and titles keep their weight relative to the query's own terms, which now weigh (1 - weight) / |q| each.
        double scale = (1 - tuning.lexicalWeight()) / queryTerms.size();
        int room2 = max - kept.size();
        room2 -= withTitles(searcher, weighted, queryTerms, titleWeight * scale, room2);
        Query second = withNames(searcher, weighted, text, nameWeight * scale, room2, filter);
        CandidateScores.EveryMatch everySecond = scoreAll ? CandidateScores.everyMatch(searcher, second) : null;
        return new Lexical(second, everySecond != null ? ranked(everySecond.top(depth)) : top(searcher, second, depth), everySecond);
    }

    /**
     * A term query carrying the term's per-segment states, looked up here once: the completion of a hybrid search's
     * scores runs the same query again, and Lucene then reuses the states instead of looking the term up in every
     * segment a second time (about a quarter of a scoped BM25 query's cost at ten million passages in 21 segments).
     */
    private static Query term(IndexSearcher searcher, String field, String text) throws IOException {
        Term term = new Term(field, text);
        return new TermQuery(term, TermStates.build(searcher, term, true));
    }

    private static List<Ranked> top(IndexSearcher searcher, Query query, int depth) throws IOException {
        // The total hit count is never used: let block-max WAND skip from the first hit on, instead of
        // counting the first 1,000 matches exactly as IndexSearcher.search(query, n) does.
        return ranked(searcher.search(query, new TopScoreDocCollectorManager(depth, null, depth)));
    }

    /**
     * Adds the title signal to {@code terms}: each query term also searched in the documents' titles, boosted by
     * {@code boost} (at most {@code room} clauses); returns how many clauses it added.
     */
    private static int withTitles(IndexSearcher searcher, BooleanQuery.Builder terms, List<String> queryTerms, double boost,
            int room) throws IOException {
        if (boost <= 0) {
            return 0;
        }
        int n = Math.min(room, queryTerms.size());
        for (String t : queryTerms.subList(0, n)) {
            terms.add(new BoostQuery(term(searcher, TITLE, t), (float) boost), BooleanClause.Occur.SHOULD);
        }
        return n;
    }

    /**
     * {@code terms} with the entity signal (the names {@code text} mentions, matched against the names each passage
     * mentions, each clause boosted by {@code boost}; at most {@code room} of them), inside {@code filter}.
     */
    private Query withNames(IndexSearcher searcher, BooleanQuery.Builder terms, String text, double boost, int room,
            Query filter) throws IOException {
        String names = nameWeight > 0 ? Mentions.of(text) : "";
        if (!names.isEmpty()) {
            List<String> nameTerms = LexicalFeedback.analyse(analyzer, NAMES, names);
            for (String t : nameTerms.subList(0, Math.min(room, nameTerms.size()))) {
                terms.add(new BoostQuery(term(searcher, NAMES, t), (float) boost), BooleanClause.Occur.SHOULD);
            }
        }
        return new BooleanQuery.Builder().add(terms.build(), BooleanClause.Occur.MUST)
                .add(filter, BooleanClause.Occur.FILTER).build();
    }

    /** The nearest documents and the query's vector; null when the embedding model is unavailable. */
    private Nearest knn(IndexSearcher searcher, SearchRequest request, ScopeDocs scope, Query filter, int beam, int depth,
            boolean scoreAll) throws IOException {
        Optional<float[]> embedded = embedder.embedQuery(request.query());
        if (embedded.isEmpty()) {
            return null;
        }
        float[] vector = embedded.get();
        CandidateScores.EveryMatch every = scoreAll ? new CandidateScores.EveryMatch() : null;
        return new Nearest(vector, nearestTo(searcher, request, vector, scope, filter, beam, depth, every), every);
    }

    /**
     * The {@code depth} nearest documents to {@code vector}: scored exactly in a small scope (every score then added to
     * {@code every}, when not null), through the graph otherwise.
     */
    private List<Ranked> nearestTo(IndexSearcher searcher, SearchRequest request, float[] vector, ScopeDocs scope,
            Query filter, int beam, int depth, CandidateScores.EveryMatch every) throws IOException {
        long scopeSize = scope.size();
        IndexReader reader = searcher.getIndexReader();
        if (ExactVectorSearch.cheaperThanGraph(scopeSize, reader.maxDoc(), beam, exactVectorSearchUpTo)) {
            return ranked(ExactVectorSearch.search(searcher, VECTOR, vector, filter, depth, every));
        }
        // When the scope is the whole index (one user, one agent), a filter would only cost a bitset of
        // every document per search.
        boolean everything = scopeSize == reader.maxDoc() && reader.numDocs() == reader.maxDoc() && request.from().isEmpty()
                && request.until().isEmpty() && request.tags().isEmpty() && request.roles().isEmpty()
                && request.filter().isEmpty() && request.asOf().isEmpty() && reader.docFreq(new Term(SUPERSEDED, "1")) == 0;
        TopDocs top = searcher.search(new KnnFloatVectorQuery(VECTOR, vector, beam, everything ? null : filter), beam);
        List<Ranked> all = ranked(top);
        return all.subList(0, Math.min(depth, all.size()));
    }

    private static List<Ranked> ranked(TopDocs top) {
        List<Ranked> out = new ArrayList<>(top.scoreDocs.length);
        for (ScoreDoc sd : top.scoreDocs) {
            out.add(new Ranked(sd.doc, sd.score));
        }
        return out;
    }

    @Override
    public void close() {
        knnPool.close();
    }
}
