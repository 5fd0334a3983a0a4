package dev.engram.tools;

import dev.engram.framework.ToolDefinitionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A small reader of Python source, enough to find a function's signature and docstring without running anything: it
 * skips strings (all quotes and prefixes, triple-quoted too), comments and bracketed continuation lines, finds the
 * {@code def} statements at column 0, splits a parameter list at its top-level commas, and decodes a docstring literal.
 */
final class PythonSource {
    /** One parameter as written: its name, its annotation's text and its default's text (empty when absent). */
    record Param(String name, String annotation, String defaultValue, boolean variadic) {
    }

    /** A top-level function: its name, parameters and docstring (the literal's value, as {@code __doc__} holds it). */
    record Function(String name, List<Param> params, Optional<String> docstring) {
    }

    private final String src;

    private PythonSource(String src) {
        this.src = src.replace("\r\n", "\n").replace('\r', '\n');
    }

    /** The names of the top-level functions of {@code source}, in order. */
    static List<String> functionNames(String source) {
        PythonSource s = new PythonSource(source);
        return s.defs().stream().map(s::nameAt).toList();
    }

    /**
     * The top-level function {@code name} of {@code source}, or its last top-level function when {@code name} is empty.
     *
     * @throws ToolDefinitionException when there is no such function or its signature cannot be read
     */
    static Function function(String source, Optional<String> name) {
        PythonSource s = new PythonSource(source);
        List<Integer> defs = s.defs();
        if (defs.isEmpty()) {
            throw new ToolDefinitionException("The source defines no function at its top level (a line beginning with "
                    + "'def name(...):'); write the tool as one Python function.");
        }
        int at = defs.getLast();
        if (name.isPresent()) {
            at = defs.stream().filter(d -> s.nameAt(d).equals(name.get())).reduce((a, b) -> b)
                    .orElseThrow(() -> new ToolDefinitionException("The source defines no top-level function named '"
                            + name.get() + "' (it defines " + defs.stream().map(s::nameAt).toList() + ")."));
        }
        return s.parse(at);
    }

    /** Where each {@code def} (or {@code async def}) at column 0, outside strings and brackets, begins. */
    private List<Integer> defs() {
        List<Integer> out = new ArrayList<>();
        int depth = 0;
        boolean lineStart = true;
        int i = 0;
        while (i < src.length()) {
            char c = src.charAt(i);
            if (lineStart && depth == 0 && (src.startsWith("def ", i) || src.startsWith("async def ", i))) {
                out.add(src.startsWith("async ", i) ? i + "async ".length() : i);
            }
            lineStart = false;
            if (c == '#') {
                int end = src.indexOf('\n', i);
                i = end < 0 ? src.length() : end;
            } else if (c == '\'' || c == '"') {
                i = skipString(i);
            } else {
                if (c == '(' || c == '[' || c == '{') {
                    depth++;
                } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
                    depth--;
                } else if (c == '\n') {
                    lineStart = i == 0 || src.charAt(i - 1) != '\\';
                }
                i++;
            }
        }
        return out;
    }

    private String nameAt(int def) {
        int start = def + "def ".length();
        int end = start;
        while (end < src.length() && (Character.isLetterOrDigit(src.charAt(end)) || src.charAt(end) == '_')) {
            end++;
        }
        return src.substring(start, end);
    }

    private Function parse(int def) {
        String name = nameAt(def);
        int open = src.indexOf('(', def);
        if (name.isEmpty() || open < 0 || !src.substring(def + 4 + name.length(), open).isBlank()) {
            throw new ToolDefinitionException("The function at '" + line(def) + "' cannot be read: write it as "
                    + "'def name(arguments):'.");
        }
        int close = matching(open);
        List<Param> params = new ArrayList<>();
        for (String part : splitTopLevel(src.substring(open + 1, close), ',')) {
            if (!part.isBlank()) {
                params.add(param(name, part.strip()));
            }
        }
        int colon = close + 1;
        while (colon < src.length() && src.charAt(colon) != ':') {
            colon = src.charAt(colon) == '\'' || src.charAt(colon) == '"' ? skipString(colon) : colon + 1;
        }
        if (colon >= src.length()) {
            throw new ToolDefinitionException("Function '" + name + "' has no ':' after its signature.");
        }
        return new Function(name, List.copyOf(params), docstring(colon + 1));
    }

    private Param param(String function, String text) {
        if (text.equals("*") || text.equals("/")) {
            return new Param(text, "", "", true);
        }
        if (text.startsWith("*")) {
            return new Param(text.replaceFirst("^\\*+", "").split(":")[0].strip(), "", "", true);
        }
        List<String> byEquals = splitTopLevel(text, '=');
        String head = byEquals.getFirst();
        String defaultValue = byEquals.size() > 1 ? text.substring(head.length() + 1).strip() : "";
        List<String> byColon = splitTopLevel(head, ':');
        String name = byColon.getFirst().strip();
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new ToolDefinitionException("Parameter '" + text + "' of function '" + function + "' cannot be read.");
        }
        String annotation = byColon.size() > 1 ? head.substring(byColon.getFirst().length() + 1).strip() : "";
        return new Param(name, annotation, defaultValue, false);
    }

    /** The docstring, if the body's first statement (after the {@code :} at {@code from}) is a string literal. */
    private Optional<String> docstring(int from) {
        int i = from;
        while (i < src.length()) {
            char c = src.charAt(i);
            if (c == '#') {
                int end = src.indexOf('\n', i);
                i = end < 0 ? src.length() : end;
            } else if (Character.isWhitespace(c) || (c == '\\' && i + 1 < src.length() && src.charAt(i + 1) == '\n')) {
                i++;
            } else {
                break;
            }
        }
        int quote = i;
        while (quote < src.length() && "rRuU".indexOf(src.charAt(quote)) >= 0 && quote - i < 1) {
            quote++;
        }
        if (quote >= src.length() || (src.charAt(quote) != '"' && src.charAt(quote) != '\'')) {
            return Optional.empty();
        }
        boolean raw = quote > i && (src.charAt(i) == 'r' || src.charAt(i) == 'R');
        int end = skipString(quote);
        int q = src.startsWith("\"\"\"", quote) || src.startsWith("'''", quote) ? 3 : 1;
        String body = src.substring(quote + q, Math.max(quote + q, end - q));
        return Optional.of(raw ? body : unescape(body));
    }

    /** The index after the string literal whose opening quote is at {@code i}. */
    private int skipString(int i) {
        char q = src.charAt(i);
        boolean triple = src.startsWith(String.valueOf(q).repeat(3), i);
        int j = i + (triple ? 3 : 1);
        while (j < src.length()) {
            char c = src.charAt(j);
            if (c == '\\') {
                j += 2;
            } else if (triple && src.startsWith(String.valueOf(q).repeat(3), j)) {
                return j + 3;
            } else if (!triple && (c == q || c == '\n')) {
                return j + 1;
            } else {
                j++;
            }
        }
        return src.length();
    }

    /** The index of the bracket closing the one at {@code open}. */
    private int matching(int open) {
        int depth = 0;
        int i = open;
        while (i < src.length()) {
            char c = src.charAt(i);
            if (c == '\'' || c == '"') {
                i = skipString(i);
                continue;
            }
            if (c == '#') {
                int end = src.indexOf('\n', i);
                i = end < 0 ? src.length() : end;
                continue;
            }
            if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
                if (depth == 0) {
                    return i;
                }
            }
            i++;
        }
        throw new ToolDefinitionException("The signature at '" + line(open) + "' has no closing ')'.");
    }

    /** {@code text} split at the {@code separator}s outside brackets and strings (comments dropped). */
    static List<String> splitTopLevel(String text, char separator) {
        List<String> out = new ArrayList<>();
        StringBuilder part = new StringBuilder();
        int depth = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\'' || c == '"') {
                int end = new PythonSource(text).skipString(i);
                part.append(text, i, end);
                i = end - 1;
                continue;
            }
            if (c == '#') {
                int end = text.indexOf('\n', i);
                i = (end < 0 ? text.length() : end) - 1;
                continue;
            }
            if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            }
            boolean split = depth == 0 && c == separator
                    && !(separator == '=' && i + 1 < text.length() && text.charAt(i + 1) == '=')
                    && !(separator == '=' && i > 0 && "=!<>".indexOf(text.charAt(i - 1)) >= 0);
            if (split) {
                out.add(part.toString());
                part.setLength(0);
            } else {
                part.append(c);
            }
        }
        out.add(part.toString());
        return out;
    }

    private static String unescape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                out.append(c);
                continue;
            }
            char n = s.charAt(++i);
            switch (n) {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case '\\' -> out.append('\\');
                case '\'' -> out.append('\'');
                case '"' -> out.append('"');
                case '\n' -> {
                    // a continued line
                }
                default -> out.append('\\').append(n);
            }
        }
        return out.toString();
    }

    private String line(int at) {
        int start = src.lastIndexOf('\n', at) + 1;
        int end = src.indexOf('\n', at);
        return src.substring(start, end < 0 ? src.length() : end).strip();
    }
}
