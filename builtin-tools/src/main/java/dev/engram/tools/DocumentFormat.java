package dev.engram.tools;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The kinds of file a folder accepts, each known by its file name's extension: what {@link Documents} reads the text
 * of. Anything else is refused, naming {@link #accepted()}.
 */
public enum DocumentFormat {
    /** Plain text, kept as it is. */
    TEXT("text/plain", "txt", "text", "log", "rst"),
    /** Markdown, kept as it is. */
    MARKDOWN("text/markdown", "md", "markdown", "mdx"),
    /** Source code and configuration, kept as it is. */
    CODE("text/plain", "java", "py", "js", "mjs", "ts", "tsx", "jsx", "go", "rs", "c", "h", "cpp", "hpp", "cc", "cs", "rb",
            "php", "swift", "kt", "kts", "scala", "sh", "bash", "sql", "yaml", "yml", "toml", "xml", "css", "ini", "properties"),
    /** JSON (pretty-printed, so that its passages break between fields) and JSON Lines (kept as they are). */
    JSON("application/json", "json", "jsonl"),
    /** Comma- or tab-separated values: each row becomes a paragraph naming its columns. */
    CSV("text/csv", "csv", "tsv"),
    /** HTML, converted to Markdown (scripts and styles dropped). */
    HTML("text/html", "html", "htm"),
    /** PDF: the text of its text layer, page by page (a scanned page without one has no text). */
    PDF("application/pdf", "pdf");

    private static final Map<String, DocumentFormat> BY_EXTENSION = new LinkedHashMap<>();
    private static final Map<String, String> CODE_TYPES = Map.of("py", "text/x-python", "java", "text/x-java",
            "js", "text/javascript", "ts", "text/x-typescript", "go", "text/x-go", "rs", "text/x-rust", "c", "text/x-c",
            "cpp", "text/x-c++", "sh", "text/x-shellscript", "yaml", "application/yaml");

    static {
        for (DocumentFormat f : values()) {
            for (String e : f.extensions) {
                BY_EXTENSION.put(e, f);
            }
        }
    }

    private final String mediaType;
    private final List<String> extensions;

    DocumentFormat(String mediaType, String... extensions) {
        this.mediaType = mediaType;
        this.extensions = List.of(extensions);
    }

    /** The extensions (without the dot) of this format. */
    public List<String> extensions() {
        return extensions;
    }

    /** Every extension accepted, with its dot ({@code .txt}, …), in this enum's order. */
    public static List<String> accepted() {
        return BY_EXTENSION.keySet().stream().map(e -> "." + e).toList();
    }

    /** The format of a file of that name, by its extension (case ignored). */
    public static Optional<DocumentFormat> of(String fileName) {
        String n = fileName.toLowerCase(Locale.ROOT);
        int dot = n.lastIndexOf('.');
        return dot < 0 ? Optional.empty() : Optional.ofNullable(BY_EXTENSION.get(n.substring(dot + 1)));
    }

    /**
     * The format of a file of that name.
     *
     * @throws IllegalArgumentException naming the accepted extensions, if its extension is not one of them
     */
    public static DocumentFormat require(String fileName) {
        return of(fileName).orElseThrow(() -> new IllegalArgumentException("'" + fileName + "' is not a format a folder "
                + "accepts; upload one of " + String.join(", ", accepted()) + " (text, Markdown, source code, JSON, CSV, "
                + "HTML or PDF)."));
    }

    /** The media type of a file of that name in this format ({@code application/pdf}, {@code text/x-python}, …). */
    public String mediaType(String fileName) {
        if (this == CODE) {
            String n = fileName.toLowerCase(Locale.ROOT);
            return CODE_TYPES.getOrDefault(n.substring(n.lastIndexOf('.') + 1), mediaType);
        }
        return mediaType;
    }
}
