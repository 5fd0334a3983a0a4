package dev.engram.tools;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/**
 * PDF files written by PDFBox for the tests: one page per list of lines, in Helvetica. Shared with the server's and
 * the CLI's tests through this module's test-jar.
 */
public final class PdfFiles {
    private PdfFiles() {
    }

    public static byte[] pages(List<List<String>> pages) {
        try (PDDocument doc = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            PDType1Font font = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
            for (List<String> lines : pages) {
                PDPage page = new PDPage();
                doc.addPage(page);
                try (PDPageContentStream text = new PDPageContentStream(doc, page)) {
                    text.beginText();
                    text.setFont(font, 11);
                    text.newLineAtOffset(50, 740);
                    for (String line : lines) {
                        text.showText(line);
                        text.newLineAtOffset(0, -16);
                    }
                    text.endText();
                }
            }
            doc.save(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A three-page manual whose third page holds {@link #PAGE_THREE}. */
    public static byte[] threePageManual() {
        return pages(List.of(
                List.of("Boiler manual, chapter one.", "Switch the boiler on with the red lever.", "Check the water gauge daily."),
                List.of("Chapter two: maintenance.", "Clean the burner every spring.", "Replace the filter each year."),
                List.of("Chapter three: safety.", PAGE_THREE, "Call the installer if it rises.")));
    }

    /** The sentence on page three of {@link #threePageManual()}. */
    public static final String PAGE_THREE = "The pressure relief valve opens at three bar.";
}
