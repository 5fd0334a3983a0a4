package dev.engram.bench.eval;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A LoCoMo file ingested as both of its evals read it: every dialog turn of a conversation appended as a message in
 * that conversation's own scope, dated at its session's date and time (as a chat recorded then would have it), and
 * each question with its category, its gold answer and the evidence turns that name a turn of its conversation.
 * Holds the in-memory store it filled; closing the corpus closes it.
 */
final class LoCoMoCorpus implements AutoCloseable {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final Pattern TURN_ID = Pattern.compile("D\\d+:\\d+");

    /**
     * One question as the file holds it.
     *
     * @param evidence the evidence turns ({@code D1:3}) that name a turn of the conversation
     * @param answer   the gold answer; empty for the adversarial questions, which have none
     */
    record Question(Scope scope, String text, int category, Set<String> evidence, String answer) {
    }

    final MemoryStore store;
    final int conversations;
    final int turns;
    final List<Question> questions;
    /** Each conversation's message ids and the turn ({@code D1:3}) each one is. */
    final Map<Scope, Map<Long, String>> turnOf;
    /** Evidence ids that were malformed or named no turn of their conversation. */
    final int skippedEvidenceIds;

    private LoCoMoCorpus(MemoryStore store, int conversations, int turns, List<Question> questions,
            Map<Scope, Map<Long, String>> turnOf, int skippedEvidenceIds) {
        this.store = store;
        this.conversations = conversations;
        this.turns = turns;
        this.questions = List.copyOf(questions);
        this.turnOf = turnOf;
        this.skippedEvidenceIds = skippedEvidenceIds;
    }

    /**
     * Reads and ingests {@code file}: every conversation, or only those whose {@code sample_id} is in {@code only}
     * when it is not empty.
     *
     * @throws IllegalArgumentException if {@code only} names a conversation the file does not hold
     */
    static LoCoMoCorpus load(Path file, LoCoMoEval.TurnFormat format, Set<String> only) {
        JsonNode root;
        try {
            root = MAPPER.readTree(file.toFile());
        } catch (RuntimeException e) {
            throw new UncheckedIOException(new IOException("cannot read LoCoMo file " + file + ": " + e.getMessage(), e));
        }
        Set<String> present = new LinkedHashSet<>();
        int c = 0;
        for (JsonNode conversation : root) {
            present.add(conversation.path("sample_id").asString("conversation-" + c++));
        }
        Set<String> missing = new LinkedHashSet<>(only);
        missing.removeAll(present);
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("the LoCoMo file " + file + " holds no conversation " + missing
                    + "; it holds " + present);
        }
        List<Question> questions = new ArrayList<>();
        Map<Scope, Map<Long, String>> turnOf = new HashMap<>();
        int skippedIds = 0;
        int turns = 0;
        int conversations = 0;
        SessionClock clock = new SessionClock();
        MemoryStore store = MemoryStore.inMemory(clock);
        try {
            c = 0;
            for (JsonNode conversation : root) {
                String id = conversation.path("sample_id").asString("conversation-" + c);
                c++;
                if (!only.isEmpty() && !only.contains(id)) {
                    continue;
                }
                conversations++;
                Scope scope = Scope.of("locomo", id);
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
                        batch.add(NewMessage.user("session-" + session.getKey(), LoCoMoEval.render(turn, format)));
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
                        String turnId = e.asString("");
                        if (TURN_ID.matcher(turnId).matches() && known.contains(turnId)) {
                            evidence.add(turnId);
                        } else {
                            skippedIds++;
                        }
                    }
                    JsonNode answer = qa.path("answer");
                    questions.add(new Question(scope, qa.path("question").asString(""), qa.path("category").asInt(0),
                            evidence, answer.isValueNode() ? answer.asString("") : ""));
                }
            }
            return new LoCoMoCorpus(store, conversations, turns, questions, turnOf, skippedIds);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    @Override
    public void close() {
        store.close();
    }

    /** The time a session's messages are stamped with: its date ("1:56 pm on 8 May, 2023", read as UTC), else the last one's. */
    private static final class SessionClock extends Clock {
        private static final DateTimeFormatter LOCOMO = new DateTimeFormatterBuilder()
                .parseCaseInsensitive().appendPattern("h:mm a 'on' d MMMM, yyyy").toFormatter(Locale.ENGLISH);
        private Instant now = Instant.parse("2023-01-01T00:00:00Z");

        void at(String date) {
            try {
                now = LocalDateTime.parse(date.strip(), LOCOMO).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException e) {
                // an undated session keeps the previous one's time
            }
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("a session clock is in UTC");
        }
    }
}
