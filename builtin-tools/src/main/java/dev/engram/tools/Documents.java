package dev.engram.tools;

import com.vladsch.flexmark.html2md.converter.FlexmarkHtmlConverter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.encryption.InvalidPasswordException;
import org.apache.pdfbox.text.PDFTextStripper;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the text of an uploaded file in one of the {@link DocumentFormat}s: text, Markdown and source code as UTF-8,
 * JSON pretty-printed, CSV rows as paragraphs naming their columns, HTML as Markdown (jsoup + flexmark), PDF from its
 * text layer (Apache PDFBox). Each failure is an {@link IllegalArgumentException} whose message says what is wrong
 * with the file.
 */
public final class Documents {
    private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
    private static final FlexmarkHtmlConverter HTML = FlexmarkHtmlConverter.builder().build();

    private Documents() {
    }

    /**
     * The text of the file {@code fileName} holding {@code content}.
     *
     * @throws IllegalArgumentException if its format is not accepted (naming those that are), or it cannot be read as
     *                                  its format says (not UTF-8, not JSON, a damaged or password-protected PDF)
     */
    public static ParsedDocument parse(String fileName, byte[] content) {
        DocumentFormat format = DocumentFormat.require(fileName);
        String media = format.mediaType(fileName);
        return switch (format) {
            case TEXT, MARKDOWN, CODE -> new ParsedDocument(format, media, utf8(fileName, content), 1);
            case JSON -> new ParsedDocument(format, media, json(fileName, utf8(fileName, content)), 1);
            case CSV -> new ParsedDocument(format, media, csv(utf8(fileName, content),
                    fileName.toLowerCase(java.util.Locale.ROOT).endsWith(".tsv") ? '\t' : ','), 1);
            case HTML -> new ParsedDocument(format, media, html(utf8(fileName, content)), 1);
            case PDF -> pdf(fileName, content, media);
        };
    }

    private static String utf8(String fileName, byte[] content) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(content)).toString();
            text = text.startsWith("\uFEFF") ? text.substring(1) : text;
            return text.replace("\r\n", "\n").replace('\u0000', ' ');
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("'" + fileName + "' is not UTF-8 text: save it as UTF-8 and upload it again.");
        }
    }

    private static String json(String fileName, String text) {
        if (fileName.toLowerCase(java.util.Locale.ROOT).endsWith(".jsonl")) {
            return text;
        }
        try {
            JsonNode node = JSON.readTree(text);
            return node == null ? "" : JSON.writeValueAsString(node);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("'" + fileName + "' is not JSON: " + e.getOriginalMessage());
        }
    }

    /** Each row after the header as one paragraph of {@code column: value} lines, so that a passage keeps its names. */
    private static String csv(String text, char separator) {
        List<List<String>> rows = CsvRows.read(text, separator);
        if (rows.isEmpty()) {
            return "";
        }
        List<String> header = rows.getFirst();
        StringBuilder out = new StringBuilder();
        for (List<String> row : rows.subList(1, rows.size())) {
            if (!out.isEmpty()) {
                out.append("\n\n");
            }
            for (int i = 0; i < row.size(); i++) {
                String name = i < header.size() && !header.get(i).isBlank() ? header.get(i) : "column " + (i + 1);
                out.append(i == 0 ? "" : "\n").append(name).append(": ").append(row.get(i).replace('\n', ' '));
            }
        }
        return rows.size() == 1 ? String.join(", ", header) : out.toString();
    }

    private static String html(String text) {
        Document doc = Jsoup.parse(text);
        doc.select("script, style, noscript, iframe, svg, template").remove();
        String title = doc.title();
        String body = HTML.convert(doc.body() == null ? "" : doc.body().outerHtml()).strip();
        return title.isBlank() || body.contains(title) ? body : "# " + title + "\n\n" + body;
    }

    private static ParsedDocument pdf(String fileName, byte[] content, String media) {
        try (PDDocument doc = Loader.loadPDF(content)) {
            PDFTextStripper stripper = new PDFTextStripper();
            stripper.setSortByPosition(true);
            List<String> pages = new ArrayList<>();
            for (int p = 1; p <= doc.getNumberOfPages(); p++) {
                stripper.setStartPage(p);
                stripper.setEndPage(p);
                String page = stripper.getText(doc).strip();
                if (!page.isEmpty()) {
                    pages.add(page);
                }
            }
            return new ParsedDocument(DocumentFormat.PDF, media, String.join("\n\n", pages).replace('\u0000', ' '),
                    doc.getNumberOfPages());
        } catch (InvalidPasswordException e) {
            throw new IllegalArgumentException("'" + fileName + "' is protected by a password: upload a copy without one.");
        } catch (IOException e) {
            throw new IllegalArgumentException("'" + fileName + "' cannot be read as a PDF (" + e.getMessage()
                    + "): check that the file is whole and upload it again.");
        }
    }
}
