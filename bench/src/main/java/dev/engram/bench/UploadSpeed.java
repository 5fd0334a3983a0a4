package dev.engram.bench;

import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.FolderFile;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Metadata;
import dev.engram.memory.TextChunker;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import dev.engram.tools.Documents;
import dev.engram.tools.FolderUploads;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/**
 * Folder upload throughput next to the embedding model's own rate, in one run: a generated PDF of {@code --pages} pages
 * (about 2,600 characters each) is uploaded through {@link FolderUploads} (parse with PDFBox, chunk, store in SQLite,
 * embed, index in Lucene) into a fresh store, and the same chunks are embedded by the bare embedder, alternating for
 * {@code --rounds} rounds. Prints pages/s and MB/s of the upload and chunks/s of both. Usage:
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector \
 *      -cp bench/target/benchmarks.jar dev.engram.bench.UploadSpeed [--pages 40] [--rounds 3] [--model bge-small|minilm]
 * </pre>
 */
public final class UploadSpeed {
    private static final String[] WORDS = ("boiler pressure valve burner filter gauge water heat pump thermostat radiator "
            + "pipe flow safety service annual check replace clean install manual chapter section lever switch system "
            + "temperature supply return circuit drain vent seal").split(" ");

    private UploadSpeed() {
    }

    public static void main(String[] args) throws Exception {
        int pages = 40;
        int rounds = 3;
        EmbeddingModel model = EmbeddingModel.defaultModel();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--pages" -> pages = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--model" -> model = args[++i].startsWith("minilm") ? EmbeddingModel.ALL_MINILM_L6_V2_Q
                        : EmbeddingModel.BGE_SMALL_EN_V15_Q;
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; use --pages N, --rounds N, --model bge-small|minilm");
            }
        }
        byte[] pdf = pdf(pages);
        List<String> chunks = TextChunker.chunk(Documents.parse("bench.pdf", pdf).text(), TextChunker.DEFAULT_CHARS);
        System.out.printf(Locale.ROOT, "PDF: %d pages, %.2f MB, %d chunks of at most %d characters; model %s%n", pages,
                pdf.length / 1e6, chunks.size(), TextChunker.DEFAULT_CHARS, model.shortName());
        Path work = Files.createTempDirectory("engram-upload-speed");
        try (Embedder embedder = OnnxEmbedder.builder(model).threads(2).build()) {
            embedder.embed(chunks.subList(0, Math.min(32, chunks.size()))); // warm-up
            System.out.println("round  embedder chunks/s  upload chunks/s  upload pages/s  upload MB/s");
            for (int r = 1; r <= rounds; r++) {
                long t0 = System.nanoTime();
                for (int from = 0; from < chunks.size(); from += 32) {
                    embedder.embed(chunks.subList(from, Math.min(chunks.size(), from + 32)));
                }
                double embedSeconds = (System.nanoTime() - t0) / 1e9;
                Path dir = Files.createDirectories(work.resolve("round-" + r));
                double uploadSeconds;
                try (MemoryStore store = MemoryStore.sqlite(dir.resolve("memory.db"));
                        MemorySearch search = LuceneMemorySearch.builder(store, embedder).directory(dir.resolve("index"))
                                .backgroundInterval(Duration.ZERO).build();
                        FolderUploads uploads = FolderUploads.create(store, search)) {
                    String folder = store.folders().create("bench", "manuals", "", "", Metadata.empty()).id();
                    long t1 = System.nanoTime();
                    FolderFile done = uploads.upload("bench", folder, "manual.pdf", pdf, FolderUploads.Duplicates.SUFFIX)
                            .await(Duration.ofHours(1));
                    uploadSeconds = (System.nanoTime() - t1) / 1e9;
                    if (done.chunksEmbedded() != chunks.size()) {
                        throw new IllegalStateException("the upload ended " + done.status().wire() + " with "
                                + done.chunksEmbedded() + " of " + chunks.size() + " chunks: " + done.error());
                    }
                }
                System.out.printf(Locale.ROOT, "%5d  %17.1f  %15.1f  %14.2f  %11.3f%n", r, chunks.size() / embedSeconds,
                        chunks.size() / uploadSeconds, pages / uploadSeconds, pdf.length / 1e6 / uploadSeconds);
            }
        }
    }

    /** A PDF of {@code pages} pages of 45 lines of pseudo-English, fixed seed. */
    static byte[] pdf(int pages) throws IOException {
        Random random = new Random(42);
        try (PDDocument doc = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            PDType1Font font = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
            for (int p = 0; p < pages; p++) {
                PDPage page = new PDPage();
                doc.addPage(page);
                try (PDPageContentStream text = new PDPageContentStream(doc, page)) {
                    text.beginText();
                    text.setFont(font, 9);
                    text.newLineAtOffset(40, 760);
                    for (int line = 0; line < 45; line++) {
                        text.showText(sentence(random) + " " + sentence(random));
                        text.newLineAtOffset(0, -16);
                    }
                    text.endText();
                }
            }
            doc.save(out);
            return out.toByteArray();
        }
    }

    private static String sentence(Random random) {
        List<String> words = new ArrayList<>();
        for (int i = 0, n = 5 + random.nextInt(4); i < n; i++) {
            words.add(WORDS[random.nextInt(WORDS.length)]);
        }
        String s = String.join(" ", words);
        return Character.toUpperCase(s.charAt(0)) + s.substring(1) + ".";
    }
}
