package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.memory.DuplicateException;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.FileStatus;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.Job;
import dev.engram.memory.JobLeases;
import dev.engram.memory.JobStatus;
import dev.engram.memory.ManualClock;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Metadata;
import dev.engram.memory.MigratedSqlite;
import dev.engram.memory.NotFoundException;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchHit;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.UserQuotas;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Uploads processed in the background over a real SQLite store, a real Lucene index and the real MiniLM model. */
class FolderUploadsTest {
    private static final Duration WAIT = Duration.ofMinutes(2);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static OnnxEmbedder embedder;

    @TempDir
    Path dir;

    private MemoryStore store;
    private MemorySearch search;
    private FolderUploads uploads;
    private Folder docs;

    @BeforeAll
    static void model() {
        embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).threads(2).build();
    }

    @AfterAll
    static void closeModel() {
        embedder.close();
    }

    @BeforeEach
    void open() {
        store = MemoryStore.sqlite(MigratedSqlite.at(dir.resolve("memory.db")));
        search = LuceneMemorySearch.builder(store, embedder).backgroundInterval(Duration.ZERO).build();
        uploads = FolderUploads.create(store, search, 300);
        docs = store.folders().create("ana", "manuals", "", "", Metadata.empty());
    }

    @AfterEach
    void close() {
        uploads.close();
        search.close();
        store.close();
    }

    private List<SearchHit> searchFiles(String user, String query) {
        return search.search(SearchRequest.builder(Scope.of(user, "any"), query).domains(SearchDomain.FILES)
                .folders(List.of(docs.id())).k(3).build());
    }

    @Test
    void aThreePagePdfIsAcceptedPendingThenParsedChunkedEmbeddedAndItsThirdPageFound() {
        byte[] pdf = PdfFiles.threePageManual();
        FileUpload upload = uploads.upload("ana", docs.id(), "uploads/boiler-manual.pdf", pdf, FolderUploads.Duplicates.SUFFIX);
        assertThat(upload.file().status()).isEqualTo(FileStatus.PENDING);
        assertThat(upload.file().name()).isEqualTo("manuals/boiler-manual.pdf");
        assertThat(upload.file().originalName()).isEqualTo("boiler-manual.pdf");
        assertThat(upload.file().mediaType()).isEqualTo("application/pdf");
        assertThat(upload.file().sizeBytes()).isEqualTo(pdf.length);
        assertThat(upload.job()).map(Job::kind).contains(FolderUploads.KIND);

        FolderFile done = upload.await(WAIT);
        assertThat(done.status()).isEqualTo(FileStatus.COMPLETED);
        assertThat(done.totalChunks()).isPositive().isEqualTo(done.chunksEmbedded());
        assertThat(done.text()).contains(PdfFiles.PAGE_THREE);
        Job job = store.jobs().get("ana", upload.job().orElseThrow().id()).orElseThrow();
        assertThat(job.status()).isEqualTo(JobStatus.COMPLETED);
        JsonNode result = JSON.readTree(job.result());
        assertThat(result.path("processing_status").asString()).isEqualTo("completed");
        assertThat(result.path("pages").asInt()).isEqualTo(3);
        assertThat(result.path("chunks_embedded").asInt()).isEqualTo(done.totalChunks());

        assertThat(searchFiles("ana", "at what pressure does the relief valve open?")).first()
                .satisfies(h -> assertThat(h.text()).contains(PdfFiles.PAGE_THREE));
        assertThat(searchFiles("ben", "relief valve")).isEmpty();
    }

    @Test
    void anUnacceptedFormatOrAnotherUsersFolderIsRefusedAndNothingIsStored() {
        assertThatThrownBy(() -> uploads.upload("ana", docs.id(), "slides.pptx", new byte[] {1}, FolderUploads.Duplicates.SUFFIX))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("upload one of .txt");
        assertThatThrownBy(() -> uploads.upload("ben", docs.id(), "a.txt", new byte[] {'a'}, FolderUploads.Duplicates.SUFFIX))
                .isInstanceOf(NotFoundException.class);
        assertThat(store.folders().files("ana", docs.id())).isEmpty();
        assertThat(store.jobs().list("ana", 10)).isEmpty();
        assertThat(store.jobs().list("ben", 10)).isEmpty();
    }

    @Test
    void aFileThatCannotBeParsedEndsWithItsErrorAndAFailedJob() {
        FileUpload upload = uploads.upload("ana", docs.id(), "config.json", "{\"broken\": ".getBytes(StandardCharsets.UTF_8),
                FolderUploads.Duplicates.SUFFIX);
        FolderFile failed = upload.await(WAIT);
        assertThat(failed.status()).isEqualTo(FileStatus.ERROR);
        assertThat(failed.error()).startsWith("'config.json' is not JSON");
        Job job = store.jobs().get("ana", upload.job().orElseThrow().id()).orElseThrow();
        assertThat(job.status()).isEqualTo(JobStatus.FAILED);
        assertThat(job.error()).isEqualTo(failed.error());
        assertThat(store.folders().countPassages("ana", docs.id())).isZero();
    }

    @Test
    void aFileOverTheStoredBytesQuotaEndsWithTheQuotaErrorAndStoresNoText() {
        try (FolderUploads limited = FolderUploads.create(store.withQuotas(UserQuotas.defaults().withStoredBytes(1_000)), search)) {
            FolderFile failed = limited.upload("ana", docs.id(), "long.txt", "word ".repeat(400).getBytes(StandardCharsets.UTF_8),
                    FolderUploads.Duplicates.SUFFIX).await(WAIT);
            assertThat(failed.status()).isEqualTo(FileStatus.ERROR);
            assertThat(failed.error()).contains("past the quota of 1000 bytes");
            assertThat(failed.text()).isEmpty();
            assertThat(store.usage("ana").storedBytes()).isZero();
        }
    }

    @Test
    void duplicatesAreSuffixedRefusedSkippedOrReplacedAsAsked() {
        byte[] a = "Alpha notes.".getBytes(StandardCharsets.UTF_8);
        FolderFile first = uploads.upload("ana", docs.id(), "notes.md", a, FolderUploads.Duplicates.SUFFIX).await(WAIT);
        FolderFile second = uploads.upload("ana", docs.id(), "notes.md", a, FolderUploads.Duplicates.SUFFIX).await(WAIT);
        assertThat(second.name()).isEqualTo("manuals/notes_(1).md");
        assertThatThrownBy(() -> uploads.upload("ana", docs.id(), "notes.md", a, FolderUploads.Duplicates.ERROR))
                .isInstanceOf(DuplicateException.class).hasMessageContaining("'notes.md' already exists in folder 'manuals'");
        FileUpload skipped = uploads.upload("ana", docs.id(), "notes.md", a, FolderUploads.Duplicates.SKIP);
        assertThat(skipped.skipped()).isTrue();
        assertThat(skipped.file()).isEqualTo(first);
        assertThat(store.folders().files("ana", docs.id())).hasSize(2);

        FolderFile replaced = uploads.upload("ana", docs.id(), "notes.md", "Beta notes.".getBytes(StandardCharsets.UTF_8),
                FolderUploads.Duplicates.REPLACE).await(WAIT);
        assertThat(store.folders().files("ana", docs.id())).extracting(FolderFile::id).containsExactly(replaced.id());
        assertThat(searchFiles("ana", "Alpha notes")).extracting(SearchHit::text).containsExactly("Beta notes.");
        assertThatThrownBy(() -> FolderUploads.Duplicates.of("rename")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("suffix, error, skip or replace");
    }

    @Test
    void anUploadInterruptedAfterItsTextWasStoredResumesAndOneInterruptedBeforeFails() {
        FolderFile parsed = store.folders().addFile("ana", docs.id(), "manuals/a.txt", "a.txt", "text/plain", 10);
        store.folders().text("ana", parsed.id(), "The spare key is under the blue pot.", 1);
        Job resumable = store.jobs().create("ana", FolderUploads.KIND, "{\"file_id\":\"" + parsed.id() + "\",\"chunk_chars\":300}");
        store.jobs().start("ana", resumable.id());
        FolderFile pending = store.folders().addFile("ana", docs.id(), "manuals/b.txt", "b.txt", "text/plain", 10);
        Job lost = store.jobs().create("ana", FolderUploads.KIND, "{\"file_id\":\"" + pending.id() + "\"}");

        List<java.util.concurrent.CompletableFuture<FolderFile>> resumed = uploads.resumeUnfinished();
        assertThat(resumed).hasSize(1);
        assertThat(resumed.getFirst().join().status()).isEqualTo(FileStatus.COMPLETED);
        assertThat(searchFiles("ana", "where is the spare key")).first().satisfies(h -> assertThat(h.text()).contains("blue pot"));
        FolderFile failed = store.folders().file("ana", pending.id()).orElseThrow();
        assertThat(failed.status()).isEqualTo(FileStatus.ERROR);
        assertThat(failed.error()).contains("upload it again");
        assertThat(store.jobs().get("ana", lost.id()).orElseThrow().status()).isEqualTo(JobStatus.FAILED);
    }

    @Test
    void onAStoreSharedByServersAnUploadAnotherLiveServerRunsIsLeftToItAndOneWhoseServerStoppedIsTakenUpAfterTheLease() {
        ManualClock clock = new ManualClock(Instant.parse("2026-11-26T08:00:00Z"));
        try (MemoryStore shared = MemoryStore.inMemory(clock);
             MemorySearch index = LuceneMemorySearch.builder(shared, embedder).backgroundInterval(Duration.ZERO).build();
             FolderUploads here = FolderUploads.create(shared, index, 300)) {
            Folder folder = shared.folders().create("ana", "manuals", "", "", Metadata.empty());
            FolderFile parsed = shared.folders().addFile("ana", folder.id(), "manuals/a.txt", "a.txt", "text/plain", 10);
            shared.folders().text("ana", parsed.id(), "The spare key is under the blue pot.", 1);
            // another server runs this upload: it started the job and touches it every heartbeat
            Job elsewhere = shared.jobs().create("ana", FolderUploads.KIND, "{\"file_id\":\"" + parsed.id() + "\"}");
            shared.jobs().start("ana", elsewhere.id());
            clock.advance(JobLeases.LEASE.minusSeconds(1));

            assertThat(here.resumeAbandoned()).as("a live server's upload is left to it").isEmpty();
            assertThat(shared.jobs().get("ana", elsewhere.id()).orElseThrow().status()).isEqualTo(JobStatus.RUNNING);
            assertThat(shared.folders().file("ana", parsed.id()).orElseThrow().status()).isEqualTo(FileStatus.EMBEDDING);

            clock.advance(Duration.ofSeconds(2)); // the other server stopped: no touch for longer than the lease
            List<java.util.concurrent.CompletableFuture<FolderFile>> resumed = here.resumeAbandoned();
            assertThat(resumed).hasSize(1);
            assertThat(resumed.getFirst().join().status()).isEqualTo(FileStatus.COMPLETED);
            assertThat(shared.jobs().get("ana", elsewhere.id()).orElseThrow().status()).isEqualTo(JobStatus.COMPLETED);
            assertThat(here.resumeAbandoned()).as("an upload ended is not taken up again").isEmpty();
        }
    }
}
