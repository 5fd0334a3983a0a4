package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each accepted format read from a real file the test writes, and each bad file refused with a sentence. */
class DocumentsTest {
    @TempDir
    Path dir;

    private ParsedDocument parse(String name, String content) throws Exception {
        Path file = Files.writeString(dir.resolve(name), content);
        return Documents.parse(file.getFileName().toString(), Files.readAllBytes(file));
    }

    @Test
    void plainTextMarkdownAndCodeAreReadAsTheyAreWithTheirMediaTypes() throws Exception {
        ParsedDocument txt = parse("notes.txt", "\uFEFFLine one.\r\nLine two.");
        assertThat(txt.text()).isEqualTo("Line one.\nLine two.");
        assertThat(txt.mediaType()).isEqualTo("text/plain");
        ParsedDocument md = parse("README.MD", "# Title\n\nSome *text*.");
        assertThat(md.format()).isEqualTo(DocumentFormat.MARKDOWN);
        assertThat(md.text()).isEqualTo("# Title\n\nSome *text*.");
        ParsedDocument py = parse("tool.py", "def main():\n    return 42\n");
        assertThat(py.format()).isEqualTo(DocumentFormat.CODE);
        assertThat(py.mediaType()).isEqualTo("text/x-python");
        assertThat(py.text()).contains("return 42");
    }

    @Test
    void jsonIsPrettyPrintedAndJsonLinesKeptWhileBrokenJsonIsRefused() throws Exception {
        ParsedDocument json = parse("config.json", "{\"name\":\"boiler\",\"limits\":{\"bar\":3}}");
        assertThat(json.text()).contains("\"name\" : \"boiler\"").contains("\n");
        assertThat(parse("events.jsonl", "{\"a\":1}\n{\"a\":2}\n").text()).isEqualTo("{\"a\":1}\n{\"a\":2}\n");
        assertThatThrownBy(() -> parse("broken.json", "{\"name\": "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("'broken.json' is not JSON");
    }

    @Test
    void csvRowsBecomeParagraphsNamingTheirColumnsWithQuotedFieldsKept() throws Exception {
        ParsedDocument csv = parse("parts.csv", "part,price,note\nvalve,12.50,\"opens at 3 bar, twice\"\n"
                + "filter,4,\"says \"\"yearly\"\"\"\n");
        assertThat(csv.text()).isEqualTo("part: valve\nprice: 12.50\nnote: opens at 3 bar, twice\n\n"
                + "part: filter\nprice: 4\nnote: says \"yearly\"");
        assertThat(parse("parts.tsv", "part\tprice\nvalve\t12\n").text()).isEqualTo("part: valve\nprice: 12");
    }

    @Test
    void htmlBecomesMarkdownWithoutScriptsOrStyles() throws Exception {
        ParsedDocument html = parse("page.html", "<html><head><title>Boilers</title><style>p{color:red}</style></head><body>"
                + "<h1>Safety</h1><p>The valve opens at <b>three</b> bar.</p><script>alert('x')</script>"
                + "<ul><li>one</li><li>two</li></ul></body></html>");
        assertThat(html.text()).contains("# Boilers").contains("Safety").contains("The valve opens at **three** bar.")
                .contains("* one").doesNotContain("alert").doesNotContain("color:red");
    }

    @Test
    void aPdfsTextLayerIsReadPageByPage() throws Exception {
        Path file = Files.write(dir.resolve("manual.pdf"), PdfFiles.threePageManual());
        ParsedDocument pdf = Documents.parse("manual.pdf", Files.readAllBytes(file));
        assertThat(pdf.pages()).isEqualTo(3);
        assertThat(pdf.mediaType()).isEqualTo("application/pdf");
        assertThat(pdf.text()).contains("Switch the boiler on with the red lever.").contains(PdfFiles.PAGE_THREE);
        assertThat(pdf.text().indexOf("Chapter two")).isLessThan(pdf.text().indexOf("Chapter three"));
    }

    @Test
    void anUnknownFormatIsRefusedNamingTheAcceptedOnes() {
        assertThatThrownBy(() -> Documents.parse("report.docx", new byte[] {1, 2}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'report.docx' is not a format a folder accepts")
                .hasMessageContaining(".txt").hasMessageContaining(".md").hasMessageContaining(".pdf")
                .hasMessageContaining(".html").hasMessageContaining(".csv").hasMessageContaining(".json");
        assertThatThrownBy(() -> Documents.parse("Makefile", new byte[] {1})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void textThatIsNotUtf8AndADamagedPdfAreRefusedWithWhatToDo() {
        assertThatThrownBy(() -> Documents.parse("latin.txt", "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("'latin.txt' is not UTF-8 text: save it as UTF-8 and upload it again.");
        assertThatThrownBy(() -> Documents.parse("broken.pdf", "%PDF-1.7 nothing else".getBytes(StandardCharsets.US_ASCII)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'broken.pdf' cannot be read as a PDF");
    }
}
