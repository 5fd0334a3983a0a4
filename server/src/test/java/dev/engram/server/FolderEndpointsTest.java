package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.UserQuotas;
import dev.engram.tools.PdfFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** Letta's folders and sources over HTTP: the folders, uploads processed in the background, files and passages. */
class FolderEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private String folder(String key, String name) {
        ServerFixture.Response r = fx.post(key, "/v1/folders/", obj("name", name, "description", "Manuals"));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("id").asString();
    }

    /** Polls the file until its processing ends; returns its last view. */
    private JsonNode processed(String key, String folder, String file) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        while (Instant.now().isBefore(deadline)) {
            JsonNode f = fx.get(key, "/v1/folders/" + folder + "/files/" + file).json();
            String status = f.path("processing_status").asString();
            if (status.equals("completed") || status.equals("error")) {
                return f;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("file " + file + " still processing after 2 minutes");
    }

    @Test
    void aFolderIsCreatedFoundListedModifiedCountedAndDeletedAtBothItsPaths() {
        fx = new ServerFixture(dir);
        String id = folder(fx.ana, "manuals");
        assertThat(id).matches("source-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
        JsonNode viaSources = fx.get(fx.ana, "/v1/sources/" + id).json();
        assertThat(viaSources.path("name").asString()).isEqualTo("manuals");
        assertThat(viaSources.path("description").asString()).isEqualTo("Manuals");
        assertThat(viaSources.path("embedding_config").path("embedding_dim").asInt()).isPositive();
        assertThat(fx.get(fx.ana, "/v1/folders/name/manuals").json().asString()).isEqualTo(id);
        assertThat(fx.get(fx.ana, "/v1/sources/name/manuals").json().asString()).isEqualTo(id);
        folder(fx.ana, "recipes");
        assertThat(fx.get(fx.ana, "/v1/folders/count").json().asInt()).isEqualTo(2);
        assertThat(fx.get(fx.ana, "/v1/sources").json()).hasSize(2);
        assertThat(fx.get(fx.ana, "/v1/folders/?name=recipes").json()).hasSize(1);

        ServerFixture.Response patched = fx.patch(fx.ana, "/v1/sources/" + id, obj("name", "handbooks", "instructions",
                "Cite the page.", "metadata", Map.of("team", "ops")));
        assertThat(patched.status()).as(patched.text()).isEqualTo(200);
        assertThat(patched.json().path("name").asString()).isEqualTo("handbooks");
        assertThat(patched.json().path("description").asString()).isEqualTo("Manuals");
        assertThat(patched.json().path("metadata").path("team").asString()).isEqualTo("ops");
        assertThat(fx.patch(fx.ana, "/v1/folders/" + id, obj("name", "recipes")).status()).isEqualTo(409);
        assertThat(fx.post(fx.ana, "/v1/folders/", obj("name", "recipes")).status()).isEqualTo(409);
        assertThat(fx.post(fx.ana, "/v1/folders/", obj("description", "no name")).status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/folders/count").json().asInt()).isEqualTo(2);

        assertThat(fx.delete(fx.ana, "/v1/folders/" + id).status()).isEqualTo(200);
        assertThat(fx.get(fx.ana, "/v1/folders/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/folders/name/handbooks").status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/folders/count").json().asInt()).isEqualTo(1);
    }

    @Test
    void anUploadAnswersAtOncePendingWithAJobAndTheThirdPageOfItsPdfIsFoundInTheFoldersPassages() throws Exception {
        fx = new ServerFixture(dir);
        String id = folder(fx.ana, "manuals");
        ServerFixture.Response up = fx.multipart(fx.ana, "/v1/folders/" + id + "/upload", "boiler.pdf", PdfFiles.threePageManual());
        assertThat(up.status()).as(up.text()).isEqualTo(200);
        assertThat(up.json().path("processing_status").asString()).isIn("pending", "parsing", "embedding");
        assertThat(up.json().path("file_name").asString()).isEqualTo("manuals/boiler.pdf");
        assertThat(up.json().path("file_type").asString()).isEqualTo("application/pdf");
        assertThat(up.json().path("source_id").asString()).isEqualTo(id);
        String file = up.json().path("id").asString();
        String job = up.json().path("job_id").asString();
        assertThat(job).startsWith("job-");

        JsonNode done = processed(fx.ana, id, file);
        assertThat(done.path("processing_status").asString()).isEqualTo("completed");
        assertThat(done.path("chunks_embedded").asInt()).isEqualTo(done.path("total_chunks").asInt()).isPositive();
        assertThat(done.path("content").isNull()).isTrue();
        assertThat(fx.get(fx.ana, "/v1/folders/" + id + "/files/" + file + "?include_content=true").json()
                .path("content").asString()).contains(PdfFiles.PAGE_THREE);
        JsonNode jobView = fx.get(fx.ana, "/v1/jobs/" + job).json();
        assertThat(jobView.path("status").asString()).isEqualTo("completed");
        assertThat(jobView.path("metadata").path("kind").asString()).isEqualTo("file_upload");
        assertThat(jobView.path("metadata").path("result").path("pages").asInt()).isEqualTo(3);

        JsonNode hits = fx.get(fx.ana, "/v1/folders/" + id + "/passages?search=relief%20valve%20pressure&top_k=2").json();
        assertThat(hits.path(0).path("text").asString()).contains(PdfFiles.PAGE_THREE);
        assertThat(hits.path(0).path("file_id").asString()).isEqualTo(file);
        assertThat(hits.path(0).path("file_name").asString()).isEqualTo("manuals/boiler.pdf");
        assertThat(hits.path(0).path("score").isNumber()).isTrue();
        assertThat(fx.get(fx.ana, "/v1/sources/" + id + "/passages").json()).hasSize(done.path("total_chunks").asInt());
        assertThat(fx.get(fx.ana, "/v1/sources/" + id + "/files").json().path(0).path("id").asString()).isEqualTo(file);
        assertThat(fx.get(fx.ana, "/v1/folders/" + id + "/agents").json()).isEmpty();
        JsonNode meta = fx.get(fx.ana, "/v1/folders/metadata?include_detailed_per_source_metadata=true").json();
        assertThat(meta.path("total_files").asInt()).isEqualTo(1);
        assertThat(meta.path("sources").path(0).path("files").path(0).path("file_id").asString()).isEqualTo(file);

        ServerFixture.Response again = fx.multipart(fx.ana, "/v1/folders/" + id + "/upload", "boiler.pdf", new byte[] {1});
        assertThat(again.json().path("file_name").asString()).isEqualTo("manuals/boiler_(1).pdf");
        JsonNode broken = processed(fx.ana, id, again.json().path("id").asString());
        assertThat(broken.path("processing_status").asString()).isEqualTo("error");
        assertThat(broken.path("error_message").asString()).contains("cannot be read as a PDF");
        ServerFixture.Response skipped = fx.multipart(fx.ana, "/v1/folders/" + id + "/upload?duplicate_handling=skip",
                "boiler.pdf", new byte[] {1});
        assertThat(skipped.headers().firstValue("X-Upload-Result")).contains("skipped");
        assertThat(skipped.json().path("id").asString()).isEqualTo(file);

        assertThat(fx.delete(fx.ana, "/v1/folders/" + id + "/" + file).status()).isEqualTo(204);
        assertThat(fx.get(fx.ana, "/v1/folders/" + id + "/passages?search=relief%20valve").json()).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/folders/" + id + "/files/" + file).status()).isEqualTo(404);
    }

    @Test
    void badUploadsAreRefusedWithWhatIsAcceptedAndStoreNothing() {
        fx = new ServerFixture(dir, b -> b.quotas(UserQuotas.defaults().withStoredBytes(2_000)));
        String id = folder(fx.ana, "manuals");
        ServerFixture.Response docx = fx.multipart(fx.ana, "/v1/folders/" + id + "/upload", "report.docx", new byte[] {1, 2});
        assertThat(docx.status()).isEqualTo(415);
        assertThat(docx.detail()).contains("report.docx").contains(".pdf").contains(".md").contains(".html").contains(".csv");
        ServerFixture.Response noFile = fx.post(fx.ana, "/v1/folders/" + id + "/upload", obj());
        assertThat(noFile.status()).isEqualTo(422);
        ServerFixture.Response badHandling = fx.multipart(fx.ana, "/v1/folders/" + id + "/upload?duplicate_handling=rename",
                "a.txt", "x".getBytes(StandardCharsets.UTF_8));
        assertThat(badHandling.status()).isEqualTo(422);
        assertThat(badHandling.text()).contains("suffix, error, skip or replace");
        ServerFixture.Response big = fx.multipart(fx.ana, "/v1/folders/" + id + "/upload", "big.txt",
                "word ".repeat(1_000).getBytes(StandardCharsets.UTF_8));
        assertThat(big.status()).isEqualTo(403);
        assertThat(big.detail()).contains("past the quota of 2000 bytes");
        assertThat(fx.get(fx.ana, "/v1/folders/" + id + "/files").json()).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/jobs/").json()).isEmpty();

        assertThat(fx.multipart(fx.ana, "/v1/folders/" + id + "/upload", "a.txt", "Alpha.".getBytes(StandardCharsets.UTF_8))
                .status()).isEqualTo(200);
        ServerFixture.Response dup = fx.multipart(fx.ana, "/v1/folders/" + id + "/upload?duplicate_handling=error", "a.txt",
                "Beta.".getBytes(StandardCharsets.UTF_8));
        assertThat(dup.status()).isEqualTo(409);
        assertThat(fx.get(fx.ana, "/v1/folders/" + id + "/files").json()).hasSize(1);
    }

    @Test
    void anotherUsersKeyFindsNoneOfTheFoldersFilesOrPassagesAndChangesNothing() throws Exception {
        fx = new ServerFixture(dir);
        String id = folder(fx.ana, "ana-manuals");
        String file = fx.multipart(fx.ana, "/v1/folders/" + id + "/upload", "notes.md",
                "The safe code is 4711.".getBytes(StandardCharsets.UTF_8)).json().path("id").asString();
        processed(fx.ana, id, file);
        for (String path : new String[] {"/v1/folders/" + id, "/v1/sources/" + id + "/files", "/v1/folders/" + id + "/files/" + file,
                "/v1/folders/" + id + "/passages", "/v1/folders/" + id + "/passages?search=safe", "/v1/folders/name/ana-manuals",
                "/v1/folders/" + id + "/agents"}) {
            ServerFixture.Response r = fx.get(fx.ben, path);
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(r.text()).doesNotContain("4711");
        }
        assertThat(fx.multipart(fx.ben, "/v1/folders/" + id + "/upload", "x.txt", new byte[] {'x'}).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/folders/" + id, obj("name", "mine")).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ben, "/v1/folders/" + id + "/" + file).status()).isEqualTo(404);
        assertThat(fx.delete(fx.ben, "/v1/folders/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/folders/").json()).isEmpty();
        assertThat(fx.get(fx.ben, "/v1/folders/count").json().asInt()).isZero();
        assertThat(fx.get(fx.ben, "/v1/folders/metadata").json().path("total_files").asInt()).isZero();

        assertThat(fx.get(fx.ana, "/v1/folders/" + id).json().path("name").asString()).isEqualTo("ana-manuals");
        assertThat(fx.get(fx.ana, "/v1/folders/" + id + "/passages?search=safe%20code").json().path(0).path("text").asString())
                .contains("4711");
        assertThat(fx.get(fx.admin, "/v1/folders/" + id).status()).isEqualTo(200);
    }
}
