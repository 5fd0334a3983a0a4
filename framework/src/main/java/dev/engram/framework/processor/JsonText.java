package dev.engram.framework.processor;

import java.util.Locale;

/** Minimal JSON and Java string literal writing. */
final class JsonText {
    private JsonText() {
    }

    /** A JSON string literal. */
    static String quote(String s) {
        return literal(s, false);
    }

    /** A Java string literal; non-ASCII as unicode escapes so the generated file's encoding never matters. */
    static String javaString(String s) {
        return literal(s, true);
    }

    private static String literal(String s, boolean asciiOnly) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || asciiOnly && c > 0x7e) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
