package dev.engram.tools;

import dev.engram.framework.ToolException;
import java.util.List;
import java.util.Locale;

/** The languages the {@link CodeRunner} runs: Python 3 and JavaScript (Node.js). */
public enum CodeLanguage {
    /** Python 3, the system's {@code python3}. */
    PYTHON("python3", "python", "py", "python3"),
    /** JavaScript, on the system's {@code node}. */
    JAVASCRIPT("node", "javascript", "js", "node");

    private final String interpreter;
    private final List<String> names;

    CodeLanguage(String interpreter, String... names) {
        this.interpreter = interpreter;
        this.names = List.of(names);
    }

    /** The program under {@code /usr} that runs this language. */
    String interpreter() {
        return interpreter;
    }

    /** The names a caller may give this language by: the first is its own. */
    public List<String> names() {
        return names;
    }

    /**
     * The language called {@code name} (any case).
     *
     * @throws ToolException naming the languages there are, for anything else (empty, TypeScript, R, Java, ...)
     */
    public static CodeLanguage parse(String name) {
        String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        for (CodeLanguage l : values()) {
            if (l.names.contains(n)) {
                return l;
            }
        }
        throw new ToolException("language '" + (name == null ? "" : name) + "' cannot run here; use python or javascript (js).");
    }
}
