package dev.engram.agents;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;

/**
 * The model's side of {@link MemoryManager#add}: the prompt that asks for facts, and the reading of its answer. An answer
 * is read when it holds a JSON object with a {@code facts} list (or a bare list) as the whole text, inside a code
 * fence, or inside prose; anything else is a {@link ParseException} naming what was wrong.
 */
final class FactExtraction {
    /** The most characters of a bad answer quoted back in an error. */
    private static final int QUOTE = 300;
    /** Reads the first JSON value of a text and ignores what follows (Jackson 3 fails on trailing tokens by default). */
    private static final ObjectReader FIRST_VALUE = Heartbeats.JSON.readerFor(JsonNode.class)
            .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Pattern FENCE = Pattern.compile("```[a-zA-Z]*\\s*\\n?(.*?)```", Pattern.DOTALL);

    static final String SYSTEM = """
            You extract durable facts worth remembering from a conversation: preferences, plans, relationships, \
            biographical details, decisions, and anything the user would expect to be remembered later. Each fact is one \
            short self-contained sentence in the third person ("The user moved to Porto in 2025."), with dates made \
            absolute where the conversation allows. Skip greetings, small talk and anything only the assistant said \
            without the user confirming it.

            Answer with JSON only, in this shape:
            {"facts": [{"text": "The user moved to Porto.", "messages": [0, 2]}]}
            where "messages" lists the numbers of the messages the fact comes from. Answer {"facts": []} when there is \
            nothing worth remembering.""";

    /** A model's answer that could not be read as facts. */
    static final class ParseException extends Exception {
        ParseException(String message) {
            super(message);
        }
    }

    /** One fact the model extracted, with the numbers of the messages it comes from. */
    record Extracted(String text, List<Integer> messages) {
    }

    private FactExtraction() {
    }

    /** The conversation as the model reads it: each message numbered, with its role. */
    static String conversation(List<MemoryMessage> messages) {
        StringBuilder out = new StringBuilder("Conversation:\n");
        for (int i = 0; i < messages.size(); i++) {
            out.append('[').append(i).append("] ").append(messages.get(i).role()).append(": ")
                    .append(messages.get(i).content()).append('\n');
        }
        return out.toString();
    }

    /** What the model is told after an answer that did not parse. */
    static String retry(String error) {
        return "Your answer could not be read: " + error + ". Answer again with only the JSON object "
                + "{\"facts\": [{\"text\": \"...\", \"messages\": [0]}]}, nothing before or after it.";
    }

    /**
     * The facts in a model's answer: its text first, then its reasoning (some models answer there).
     *
     * @param messages how many messages the conversation had (a fact's message numbers must be among them)
     */
    static List<Extracted> parse(String text, String reasoning, int messages) throws ParseException {
        ParseException first;
        try {
            return parse(text, messages);
        } catch (ParseException e) {
            first = e;
        }
        if (!reasoning.isBlank()) {
            try {
                return parse(reasoning, messages);
            } catch (ParseException ignored) {
                // the answer's own error says more than the reasoning's
            }
        }
        throw first;
    }

    private static List<Extracted> parse(String text, int messages) throws ParseException {
        if (text.isBlank()) {
            throw new ParseException("the answer is empty");
        }
        List<String> candidates = new ArrayList<>();
        candidates.add(text.strip());
        Matcher fence = FENCE.matcher(text);
        while (fence.find()) {
            candidates.add(fence.group(1).strip());
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '{' || c == '[') {
                candidates.add(text.substring(i));
            }
        }
        String shapeError = null;
        for (String candidate : candidates) {
            JsonNode node = firstValue(candidate);
            if (node == null) {
                continue;
            }
            try {
                return facts(node, messages);
            } catch (ParseException e) {
                if (shapeError == null) {
                    shapeError = e.getMessage();
                }
            }
        }
        throw new ParseException(shapeError != null ? shapeError
                : "the answer holds no JSON object with a \"facts\" list; it begins: " + quote(text));
    }

    /** The first JSON value at the start of {@code text}, ignoring what follows it; null if there is none. */
    private static JsonNode firstValue(String text) {
        try {
            JsonNode node = FIRST_VALUE.readValue(text);
            return node != null && (node.isObject() || node.isArray()) ? node : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    private static List<Extracted> facts(JsonNode node, int messages) throws ParseException {
        JsonNode list = node.isArray() ? node : node.get("facts");
        if (list == null) {
            list = node.get("memory");
        }
        if (list == null || !list.isArray()) {
            throw new ParseException("the answer's JSON has no \"facts\" list: " + quote(node.toString()));
        }
        List<Extracted> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode f = list.get(i);
            JsonNode text = f.isObject() ? (f.has("text") ? f.get("text") : f.get("fact")) : f;
            if (text == null || !text.isString() || text.asString().isBlank()) {
                throw new ParseException("fact " + i + " of the answer is not a non-blank string or an object with a "
                        + "\"text\": " + quote(f.toString()));
            }
            List<Integer> from = new ArrayList<>();
            JsonNode sources = f.path("messages");
            for (JsonNode s : sources.isArray() ? sources : Heartbeats.JSON.createArrayNode()) {
                if (!s.canConvertToInt() || s.asInt() < 0 || s.asInt() >= messages) {
                    throw new ParseException("fact " + i + " names message " + s + ", but the conversation has messages 0 to "
                            + (messages - 1));
                }
                from.add(s.asInt());
            }
            out.add(new Extracted(text.asString().strip(), List.copyOf(from)));
        }
        return List.copyOf(out);
    }

    private static String quote(String text) {
        String t = text.strip().replaceAll("\\s+", " ");
        return '"' + (t.length() > QUOTE ? t.substring(0, QUOTE) + "…" : t) + '"';
    }
}
