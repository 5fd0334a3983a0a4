package dev.engram.agents;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the memory a new fact near-duplicates among those a scope holds: the same text once normalised (case, accents'
 * forms, punctuation and spacing ignored), or words that overlap at least a threshold (Jaccard over word sets).
 */
final class FactMatcher {
    /** A memory the scope holds: its id and text. */
    record Known(String id, String text, Set<String> words, String normal) {
    }

    private final double threshold;
    private final List<Known> known = new ArrayList<>();

    FactMatcher(double threshold) {
        this.threshold = threshold;
    }

    /** Adds a memory the scope holds (or one just stored). */
    void add(String id, String text) {
        String normal = normalise(text);
        known.add(new Known(id, text, words(normal), normal));
    }

    /** The most similar known memory at or above the threshold (an identical normalised text first). */
    Optional<Known> match(String text) {
        String normal = normalise(text);
        Set<String> words = words(normal);
        Known best = null;
        double bestScore = 0;
        for (Known k : known) {
            double score = k.normal().equals(normal) ? 2 : jaccard(words, k.words());
            if (score >= threshold && score > bestScore) {
                best = k;
                bestScore = score;
            }
        }
        return Optional.ofNullable(best);
    }

    static String normalise(String text) {
        String n = Normalizer.normalize(text, Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
        return n.replaceAll("[^\\p{L}\\p{N}]+", " ").strip();
    }

    private static Set<String> words(String normal) {
        return normal.isEmpty() ? Set.of() : new HashSet<>(Arrays.asList(normal.split(" ")));
    }

    private static double jaccard(Set<String> a, Set<String> b) {
        if (a.isEmpty() || b.isEmpty()) {
            return 0;
        }
        int both = 0;
        for (String w : a) {
            if (b.contains(w)) {
                both++;
            }
        }
        return (double) both / (a.size() + b.size() - both);
    }
}
