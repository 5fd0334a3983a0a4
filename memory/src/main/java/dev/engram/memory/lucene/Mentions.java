package dev.engram.memory.lucene;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The entity signal: the names a text mentions, found the way a reader spots them, as capitalised words ("Lisbon",
 * "Caroline", "LGBTQ") that are not one of the common words that start a sentence or a question ("The", "What", "I").
 * The search index keeps a conversation message's names in a field of their own, and a search adds the names its query
 * mentions as a second, weighted BM25 clause over that field, so that a message naming what the query names ranks above
 * one that only shares its other words. No model is involved: the same text gives the same names on every store.
 */
final class Mentions {
    private static final Pattern WORD = Pattern.compile("\\p{L}[\\p{L}\\p{N}'’-]*");
    /** Capitalised words that are no name: pronouns, articles, question words, interjections, auxiliaries. */
    private static final Set<String> COMMON = Set.of("i", "i'm", "i've", "i'll", "i'd", "the", "a", "an", "and", "but", "or",
            "what", "when", "where", "who", "why", "how", "which", "did", "does", "do", "is", "was", "were", "are", "it",
            "that", "this", "there", "they", "we", "you", "he", "she", "my", "your", "our", "their", "his", "her", "yes",
            "no", "oh", "wow", "hey", "hi", "thanks", "thank", "yeah", "so", "if", "in", "on", "at", "for", "to", "of",
            "would", "could", "should", "can", "will", "has", "have", "had", "that's", "it's", "let", "let's", "sure");

    private Mentions() {
    }

    /** The names {@code text} mentions, in order, separated by spaces; empty when it names nothing. */
    static String of(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = WORD.matcher(text);
        while (m.find()) {
            String w = m.group();
            if (Character.isUpperCase(w.charAt(0)) && !COMMON.contains(w.toLowerCase(Locale.ROOT))) {
                out.add(w);
            }
        }
        return String.join(" ", out);
    }
}
