package dev.engram.tools;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** Finding text in a block or file, and saying helpfully where it is not. */
final class TextMatch {
    private TextMatch() {
    }

    static int count(String haystack, String needle) {
        int n = 0;
        for (int i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
            n++;
        }
        return n;
    }

    static int lineOf(String text, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    /** The lines most like the text that was not found, so the model can copy the right one. */
    static String closestLines(String value, String wanted) {
        String[] lines = value.split("\n", -1);
        record Scored(int line, String text, double score) {
        }
        List<Scored> scored = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].isBlank()) {
                scored.add(new Scored(i + 1, lines[i], similarity(lines[i], wanted)));
            }
        }
        if (scored.isEmpty()) {
            return "The block is empty. ";
        }
        scored.sort(Comparator.comparingDouble(Scored::score).reversed());
        StringBuilder sb = new StringBuilder("Closest lines:\n");
        for (Scored s : scored.subList(0, Math.min(3, scored.size()))) {
            sb.append("  line ").append(s.line()).append(": ").append(s.text()).append('\n');
        }
        return sb.toString();
    }

    /** Similarity in [0, 1]: 1 - Levenshtein distance / longer length, on lower-cased text. */
    static double similarity(String a, String b) {
        String x = a.toLowerCase(Locale.ROOT).strip();
        String y = b.toLowerCase(Locale.ROOT).strip();
        if (x.isEmpty() && y.isEmpty()) {
            return 1;
        }
        if (x.length() > 2_000 || y.length() > 2_000) {
            return x.contains(y) || y.contains(x) ? 0.9 : 0;
        }
        int[] prev = new int[y.length() + 1];
        int[] cur = new int[y.length() + 1];
        for (int j = 0; j <= y.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= x.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= y.length(); j++) {
                int cost = x.charAt(i - 1) == y.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return 1.0 - prev[y.length()] / (double) Math.max(x.length(), y.length());
    }
}
