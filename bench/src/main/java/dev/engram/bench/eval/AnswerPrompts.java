package dev.engram.bench.eval;

import dev.engram.memory.SearchHit;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The model side of {@link LoCoMoAnswerEval}: the prompt that asks a question from retrieved memories, the judge's
 * prompt (an LLM judge as the Mem0 paper describes it: the question, the gold answer and the generated answer, a
 * generous CORRECT or WRONG, as JSON), and the reading of the judge's answer.
 */
final class AnswerPrompts {
    private static final ObjectReader FIRST_VALUE = JsonMapper.builder().build().readerFor(JsonNode.class)
            .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Pattern FENCE = Pattern.compile("```[a-zA-Z]*\\s*\\n?(.*?)```", Pattern.DOTALL);
    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("d MMMM yyyy, h:mm a", Locale.ENGLISH)
            .withZone(ZoneOffset.UTC);
    private static final int QUOTE = 200;

    static final String ANSWER_SYSTEM = """
            You answer a question about a long conversation between two people, using only memories retrieved from \
            that conversation. Each memory is one message, with the date and time it was sent. When a message speaks \
            of a time relative to its own date ("last week", "yesterday", "next month"), work out the date it means \
            from the date of that message. Answer with a short phrase: a name, a date, a place, a few words or a short \
            list, without explanation. If the memories do not hold the answer, say that you do not know.""";

    static final String JUDGE_SYSTEM = """
            You grade an answer to a question about a conversation. You get the question, the gold answer, and a \
            generated answer, and you label the generated answer CORRECT or WRONG.

            Grade generously: a generated answer that is longer, or worded differently, is CORRECT when it refers to \
            the same thing as the gold answer. For a question about time, an answer that names the same date or period \
            in another format ("May 7th" for "7 May 2023"), or relative to a date it states, is CORRECT. An answer that \
            misses what the gold answer says, contradicts it, or says it does not know is WRONG.

            Reply with one JSON object and nothing else: a one-sentence reason first, then the label, in this shape:
            {"reasoning": "one sentence", "label": "CORRECT"}""";

    /** A judge's answer that could not be read as a label. */
    static final class ParseException extends Exception {
        ParseException(String message) {
            super(message);
        }
    }

    private AnswerPrompts() {
    }

    /** The question with its memories, oldest first, each with the date it was written. */
    static String question(String question, List<SearchHit> hits) {
        List<SearchHit> ordered = new ArrayList<>(hits);
        ordered.sort(Comparator.comparing(SearchHit::timestamp).thenComparing(h -> h.id().length())
                .thenComparing(SearchHit::id));
        StringBuilder sb = new StringBuilder("Memories:\n");
        if (ordered.isEmpty()) {
            sb.append("(none were found)\n");
        }
        for (SearchHit h : ordered) {
            sb.append("- [").append(WHEN.format(h.timestamp())).append("] ").append(h.text().strip()).append('\n');
        }
        return sb.append("\nQuestion: ").append(question.strip()).append("\nAnswer:").toString();
    }

    /** What the judge reads. */
    static String judge(String question, String gold, String generated) {
        return "Question: " + question.strip() + "\nGold answer: " + gold.strip() + "\nGenerated answer: "
                + (generated.isBlank() ? "(empty)" : generated.strip());
    }

    /** What the judge is told after an answer that could not be read. */
    static String retry(String error) {
        return "Your reply could not be read: " + error + ". Reply again with only the JSON object "
                + "{\"reasoning\": \"one sentence\", \"label\": \"CORRECT\"} (or \"WRONG\"), nothing before or after it.";
    }

    /**
     * The judge's verdict: a JSON object with a {@code label} of {@code CORRECT} or {@code WRONG} (any case), as the
     * whole reply, in a code fence, or inside prose.
     *
     * @return whether the label is CORRECT
     */
    static boolean verdict(String reply) throws ParseException {
        if (reply.isBlank()) {
            throw new ParseException("the reply is empty");
        }
        List<String> candidates = new ArrayList<>();
        candidates.add(reply.strip());
        Matcher fence = FENCE.matcher(reply);
        while (fence.find()) {
            candidates.add(fence.group(1).strip());
        }
        for (int i = 0; i < reply.length(); i++) {
            if (reply.charAt(i) == '{') {
                candidates.add(reply.substring(i));
            }
        }
        String labelError = null;
        for (String candidate : candidates) {
            JsonNode node = firstObject(candidate);
            if (node == null || !node.has("label")) {
                continue;
            }
            JsonNode label = node.get("label");
            String value = label.isString() ? label.asString().strip().toUpperCase(Locale.ROOT) : "";
            if (value.equals("CORRECT") || value.equals("WRONG")) {
                return value.equals("CORRECT");
            }
            if (labelError == null) {
                labelError = "the label must be \"CORRECT\" or \"WRONG\", got " + quote(label.toString());
            }
        }
        throw new ParseException(labelError != null ? labelError
                : "the reply holds no JSON object with a \"label\"; it begins: " + quote(reply));
    }

    private static JsonNode firstObject(String text) {
        try {
            JsonNode node = FIRST_VALUE.readValue(text);
            return node != null && node.isObject() ? node : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    static String quote(String text) {
        String t = text.strip().replaceAll("\\s+", " ");
        return '"' + (t.length() > QUOTE ? t.substring(0, QUOTE) + "…" : t) + '"';
    }
}
