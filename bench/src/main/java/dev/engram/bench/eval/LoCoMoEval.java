package dev.engram.bench.eval;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchMode;
import dev.engram.memory.SearchRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Conversational-memory retrieval on LoCoMo: every dialog turn of a conversation is appended as a
 * message in that conversation's own scope, dated at its session's date and time (as a chat recorded
 * then would have it), each question is searched within it, and recall@5, @10,
 * @25 and @50 of the evidence turns are averaged, overall and per category (1 multi-hop, 2 temporal,
 * 3 open-domain, 4 single-hop, 5 adversarial). Evidence ids that are malformed or name no turn of the
 * conversation are skipped and counted; a question left without evidence is skipped and counted.
 */
public final class LoCoMoEval {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final Pattern TURN_ID = Pattern.compile("D\\d+:\\d+");
    public static final int[] CUTOFFS = {5, 10, 25, 50};
    public static final Map<Integer, String> CATEGORIES = Map.of(1, "multi-hop", 2, "temporal", 3, "open-domain",
            4, "single-hop", 5, "adversarial");

    /** How a turn becomes message text: with or without the caption of a shared image. */
    public enum TurnFormat {
        /** {@code Speaker: text}. */
        SPEAKER_TEXT,
        /** {@code Speaker: text [shared an image: caption]}, as a chat client records a shared photo. The default. */
        SPEAKER_TEXT_CAPTION
    }

    /** Recall at each cutoff for one mode: overall, and per category. */
    public record Result(SearchMode mode, int questions, double[] overall, Map<Integer, double[]> byCategory,
            Map<Integer, Integer> questionsByCategory) {
        public double recallAt(int cutoff) {
            for (int i = 0; i < CUTOFFS.length; i++) {
                if (CUTOFFS[i] == cutoff) {
                    return overall[i];
                }
            }
            throw new IllegalArgumentException("no cutoff " + cutoff);
        }
    }

    /** Every mode's result, with the counts of what was skipped. */
    public record Report(int conversations, int turns, int questions, int skippedEvidenceIds, int skippedQuestions,
            double indexSeconds, List<Result> results) {
    }

    private LoCoMoEval() {
    }

    public static Report run(Path file, EvalSetup setup, TurnFormat format, MemorySearch.ProgressListener progress) {
        JsonNode root;
        try {
            root = MAPPER.readTree(file.toFile());
        } catch (RuntimeException e) {
            throw new UncheckedIOException(new IOException("cannot read LoCoMo file " + file + ": " + e.getMessage(), e));
        }
        record Question(Scope scope, String text, int category, Set<String> evidence) {
        }
        List<Question> questions = new ArrayList<>();
        Map<Scope, Map<Long, String>> turnOf = new HashMap<>();
        int skippedIds = 0;
        int skippedQuestions = 0;
        int turns = 0;
        SessionClock clock = new SessionClock();
        try (MemoryStore store = MemoryStore.inMemory(clock)) {
            int c = 0;
            for (JsonNode conversation : root) {
                Scope scope = Scope.of("locomo", conversation.path("sample_id").asString("conversation-" + c));
                c++;
                JsonNode sessions = conversation.path("conversation");
                Map<Integer, JsonNode> ordered = new TreeMap<>();
                for (String name : sessions.propertyNames()) {
                    if (name.matches("session_\\d+") && sessions.get(name).isArray()) {
                        ordered.put(Integer.parseInt(name.substring(8)), sessions.get(name));
                    }
                }
                Map<Long, String> ids = new HashMap<>();
                for (Map.Entry<Integer, JsonNode> session : ordered.entrySet()) {
                    clock.at(sessions.path("session_" + session.getKey() + "_date_time").asString(""));
                    List<NewMessage> batch = new ArrayList<>();
                    List<String> diaIds = new ArrayList<>();
                    for (JsonNode turn : session.getValue()) {
                        batch.add(NewMessage.user("session-" + session.getKey(), render(turn, format)));
                        diaIds.add(turn.path("dia_id").asString());
                    }
                    List<ConversationMessage> stored = store.messages().appendAll(scope, batch);
                    for (int i = 0; i < stored.size(); i++) {
                        ids.put(stored.get(i).id(), diaIds.get(i));
                    }
                    turns += stored.size();
                }
                turnOf.put(scope, ids);
                Set<String> known = new LinkedHashSet<>(ids.values());
                for (JsonNode qa : conversation.path("qa")) {
                    Set<String> evidence = new LinkedHashSet<>();
                    for (JsonNode e : qa.path("evidence")) {
                        String id = e.asString("");
                        if (TURN_ID.matcher(id).matches() && known.contains(id)) {
                            evidence.add(id);
                        } else {
                            skippedIds++;
                        }
                    }
                    if (evidence.isEmpty() || qa.path("question").asString("").isBlank()) {
                        skippedQuestions++;
                        continue;
                    }
                    questions.add(new Question(scope, qa.path("question").asString(), qa.path("category").asInt(0), evidence));
                }
            }
            long start = System.nanoTime();
            try (MemorySearch search = setup.openSearch(store)) {
                search.reindex(progress);
                double indexSeconds = (System.nanoTime() - start) / 1e9;
                int max = CUTOFFS[CUTOFFS.length - 1];
                List<Result> results = new ArrayList<>();
                for (SearchMode mode : setup.orderedModes()) {
                    double[] overall = new double[CUTOFFS.length];
                    Map<Integer, double[]> byCategory = new TreeMap<>();
                    Map<Integer, Integer> counts = new TreeMap<>();
                    for (Question q : questions) {
                        List<SearchHit> hits = search.search(SearchRequest.builder(q.scope(), q.text())
                                .domains(SearchDomain.CONVERSATIONS).k(max).mode(mode).fusion(setup.fusion()).build());
                        Map<Long, String> ids = turnOf.get(q.scope());
                        List<String> ranked = hits.stream().map(h -> ids.get(Long.parseLong(h.id()))).toList();
                        double[] cat = byCategory.computeIfAbsent(q.category(), k -> new double[CUTOFFS.length]);
                        counts.merge(q.category(), 1, Integer::sum);
                        for (int i = 0; i < CUTOFFS.length; i++) {
                            double r = Metrics.recall(ranked, q.evidence(), CUTOFFS[i]);
                            overall[i] += r;
                            cat[i] += r;
                        }
                    }
                    for (int i = 0; i < CUTOFFS.length; i++) {
                        overall[i] /= questions.size();
                    }
                    byCategory.forEach((k, v) -> {
                        for (int i = 0; i < v.length; i++) {
                            v[i] /= counts.get(k);
                        }
                    });
                    results.add(new Result(mode, questions.size(), overall, new LinkedHashMap<>(byCategory), counts));
                }
                return new Report(c, turns, questions.size(), skippedIds, skippedQuestions, indexSeconds, results);
            }
        }
    }

    /** The time a session's messages are stamped with: its date ("1:56 pm on 8 May, 2023", read as UTC), else the last one's. */
    private static final class SessionClock extends java.time.Clock {
        private static final java.time.format.DateTimeFormatter LOCOMO = new java.time.format.DateTimeFormatterBuilder()
                .parseCaseInsensitive().appendPattern("h:mm a 'on' d MMMM, yyyy").toFormatter(java.util.Locale.ENGLISH);
        private java.time.Instant now = java.time.Instant.parse("2023-01-01T00:00:00Z");

        void at(String date) {
            try {
                now = java.time.LocalDateTime.parse(date.strip(), LOCOMO).toInstant(java.time.ZoneOffset.UTC);
            } catch (java.time.format.DateTimeParseException e) {
                // an undated session keeps the previous one's time
            }
        }

        @Override
        public java.time.Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            throw new UnsupportedOperationException("a session clock is in UTC");
        }
    }

    static String render(JsonNode turn, TurnFormat format) {
        String text = turn.path("speaker").asString("?") + ": " + turn.path("text").asString("");
        String caption = turn.path("blip_caption").asString("");
        if (format == TurnFormat.SPEAKER_TEXT_CAPTION && !caption.isBlank()) {
            text += " [shared an image: " + caption + "]";
        }
        return text;
    }
}
