package dev.engram.framework.processor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The main description and the {@code @param} descriptions of a javadoc comment. */
record ToolJavadoc(String main, Map<String, String> params) {
    private static final Pattern PARAM_TAG = Pattern.compile("^@param\\s+(\\S+)\\s*(.*)$", Pattern.DOTALL);
    private static final Pattern INLINE_TAG = Pattern.compile("\\{@(?:code|link|linkplain|literal|value)\\s+([^}]*)}");

    /** The parts of {@code comment}; empty ones when there is no comment. */
    static ToolJavadoc parse(String comment) {
        if (comment == null) {
            return new ToolJavadoc("", Map.of());
        }
        StringBuilder main = new StringBuilder();
        Map<String, String> params = new LinkedHashMap<>();
        StringBuilder tag = null;
        List<String> tags = new ArrayList<>();
        for (String line : comment.split("\\R")) {
            String trimmed = line.strip();
            if (trimmed.startsWith("@")) {
                if (tag != null) {
                    tags.add(tag.toString());
                }
                tag = new StringBuilder(trimmed);
            } else if (tag != null) {
                tag.append(' ').append(trimmed);
            } else {
                main.append(trimmed).append('\n');
            }
        }
        if (tag != null) {
            tags.add(tag.toString());
        }
        for (String t : tags) {
            Matcher m = PARAM_TAG.matcher(t);
            if (m.matches()) {
                params.put(m.group(1), clean(m.group(2)));
            }
        }
        return new ToolJavadoc(clean(main.toString()), params);
    }

    /** Inline tags to their text, HTML paragraph tags to blank lines, runs of spaces folded. */
    private static String clean(String text) {
        String s = INLINE_TAG.matcher(text).replaceAll(r -> Matcher.quoteReplacement(r.group(1).strip()));
        s = s.replaceAll("(?i)<p>", "\n\n").replaceAll("(?i)</?(b|i|em|strong|code)>", "");
        StringBuilder out = new StringBuilder();
        for (String paragraph : s.strip().split("\\n\\s*\\n")) {
            if (!out.isEmpty()) {
                out.append("\n\n");
            }
            out.append(paragraph.strip().replaceAll("\\s+", " "));
        }
        return out.toString().strip();
    }
}
