package dev.engram.agents;

/**
 * Decodes one top-level string field (such as {@code "message"}) of a JSON object whose text arrives in fragments cut
 * anywhere (mid-key, mid-escape, mid-surrogate pair): {@link #feed} returns the newly decoded part of
 * the message. Used to stream the reply a {@code send_message} call is writing. Malformed input ends
 * the decoding silently: the complete arguments still go through the tool pipeline, which reports
 * them. Not thread-safe.
 */
final class ReplyDecoder {
    private final String field;

    private int depth;
    private boolean inString;
    private boolean expectKey;
    private boolean readingKey;
    private final StringBuilder key = new StringBuilder();
    private String lastKey = "";
    private boolean inMessage;
    private boolean done;
    /** An escape in progress: "\\" alone, or "\\u" and up to four hex digits. */
    private final StringBuilder escape = new StringBuilder();
    private char highSurrogate;

    /** @param field the top-level field whose text to decode */
    ReplyDecoder(String field) {
        this.field = field;
    }

    /** Feeds a fragment; returns the message text it completes (empty if none). */
    String feed(String fragment) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < fragment.length() && !done; i++) {
            char c = fragment.charAt(i);
            if (inString) {
                string(c, out);
            } else {
                structure(c);
            }
        }
        return out.toString();
    }

    private void structure(char c) {
        switch (c) {
            case '{', '[' -> {
                depth++;
                expectKey = depth == 1 && c == '{';
            }
            case '}', ']' -> {
                depth--;
                if (depth <= 0) {
                    done = true;
                }
            }
            case ',' -> expectKey = depth == 1;
            case ':' -> expectKey = false;
            case '"' -> {
                inString = true;
                readingKey = depth == 1 && expectKey;
                inMessage = depth == 1 && !expectKey && lastKey.equals(field);
                key.setLength(0);
            }
            default -> {
            }
        }
    }

    private void string(char c, StringBuilder out) {
        if (!escape.isEmpty()) {
            escape.append(c);
            unescape(out);
            return;
        }
        if (c == '\\') {
            escape.append(c);
            return;
        }
        if (c == '"') {
            inString = false;
            if (readingKey) {
                lastKey = key.toString();
                readingKey = false;
            }
            if (inMessage) {
                inMessage = false;
                done = true; // the message is complete; the rest of the arguments does not matter here
            }
            return;
        }
        emit(c, out);
    }

    private void unescape(StringBuilder out) {
        if (escape.length() == 2 && escape.charAt(1) != 'u') {
            char decoded = switch (escape.charAt(1)) {
                case 'n' -> '\n';
                case 't' -> '\t';
                case 'r' -> '\r';
                case 'b' -> '\b';
                case 'f' -> '\f';
                default -> escape.charAt(1); // \" \\ \/ and anything lenient
            };
            escape.setLength(0);
            emit(decoded, out);
        } else if (escape.length() == 6) {
            String hex = escape.substring(2);
            escape.setLength(0);
            try {
                emit((char) Integer.parseInt(hex, 16), out);
            } catch (NumberFormatException e) {
                done = true;
            }
        }
    }

    private void emit(char c, StringBuilder out) {
        if (readingKey) {
            key.append(c);
            return;
        }
        if (!inMessage) {
            return;
        }
        if (Character.isHighSurrogate(c)) {
            highSurrogate = c;
            return;
        }
        if (highSurrogate != 0) {
            if (Character.isLowSurrogate(c)) {
                out.append(highSurrogate);
            }
            highSurrogate = 0;
        }
        out.append(c);
    }
}
