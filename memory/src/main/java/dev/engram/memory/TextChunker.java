package dev.engram.memory;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits text into chunks of at most {@code max} characters: on Markdown headings and blank lines
 * first, packing paragraphs together; a paragraph longer than {@code max} is split at sentence ends,
 * and a sentence longer than {@code max} at the limit. The chunks of an uploaded file's passages
 * ({@link FolderStore}) and of {@code engram ingest}.
 */
public final class TextChunker {
    /** The smallest and largest chunk size accepted. */
    public static final int MIN_CHARS = 200;
    public static final int MAX_CHARS = 20_000;
    /** The chunk size of an upload that names none. */
    public static final int DEFAULT_CHARS = 1_500;

    private TextChunker() {
    }

    /**
     * The chunks of {@code text}, none longer than {@code max} characters, none blank.
     *
     * @throws IllegalArgumentException if {@code max} is outside {@link #MIN_CHARS} to {@link #MAX_CHARS}
     */
    public static List<String> chunk(String text, int max) {
        Checks.notNull(text, "text");
        if (max < MIN_CHARS || max > MAX_CHARS) {
            throw new IllegalArgumentException("the chunk size must be between " + MIN_CHARS + " and " + MAX_CHARS
                    + " characters, got " + max);
        }
        List<String> paragraphs = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.replace("\r\n", "\n").split("\n", -1)) {
            boolean heading = line.startsWith("#");
            if ((line.isBlank() || heading) && !current.isEmpty()) {
                paragraphs.add(current.toString().strip());
                current.setLength(0);
            }
            if (!line.isBlank()) {
                current.append(line).append('\n');
            }
        }
        if (!current.isEmpty()) {
            paragraphs.add(current.toString().strip());
        }
        List<String> chunks = new ArrayList<>();
        StringBuilder chunk = new StringBuilder();
        for (String p : paragraphs) {
            for (String piece : split(p, max)) {
                if (!chunk.isEmpty() && chunk.length() + 2 + piece.length() > max) {
                    chunks.add(chunk.toString());
                    chunk.setLength(0);
                }
                if (!chunk.isEmpty()) {
                    chunk.append("\n\n");
                }
                chunk.append(piece);
            }
        }
        if (!chunk.isEmpty()) {
            chunks.add(chunk.toString());
        }
        return chunks;
    }

    private static List<String> split(String paragraph, int max) {
        if (paragraph.length() <= max) {
            return List.of(paragraph);
        }
        List<String> out = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        for (String sentence : paragraph.split("(?<=[.!?])\\s+")) {
            String s = sentence;
            while (s.length() > max) {
                if (!sb.isEmpty()) {
                    out.add(sb.toString());
                    sb.setLength(0);
                }
                out.add(s.substring(0, max));
                s = s.substring(max);
            }
            if (!sb.isEmpty() && sb.length() + 1 + s.length() > max) {
                out.add(sb.toString());
                sb.setLength(0);
            }
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append(s);
        }
        if (!sb.isEmpty()) {
            out.add(sb.toString());
        }
        return out;
    }
}
