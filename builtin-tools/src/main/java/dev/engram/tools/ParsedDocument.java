package dev.engram.tools;

import java.util.Objects;

/**
 * The text read out of an uploaded file by {@link Documents#parse}.
 *
 * @param format    what the file was read as
 * @param mediaType its media type
 * @param text      its text (Markdown for HTML, rows as paragraphs for CSV)
 * @param pages     its pages for a PDF, else 1
 */
public record ParsedDocument(DocumentFormat format, String mediaType, String text, int pages) {
    public ParsedDocument {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(mediaType, "mediaType");
        Objects.requireNonNull(text, "text");
    }
}
