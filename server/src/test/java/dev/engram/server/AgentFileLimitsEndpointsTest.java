package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * An agent's {@code max_files_open} and {@code per_file_view_window_char_limit} over HTTP: set on create and modify,
 * returned in the agent state, honoured when a file opens and in the file's visible content; a bad value is a 422 that
 * changes nothing; a file uploaded to an attached folder opens for the agent and a deleted one leaves it.
 */
class AgentFileLimitsEndpointsTest {
    @TempDir
    Path dir;
    ServerFixture fx;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private String folder(String name) {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/folders/", obj("name", name));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("id").asString();
    }

    /** Uploads a file and waits until it is processed; returns its id. */
    private String upload(String folder, String name, String text) throws InterruptedException {
        ServerFixture.Response up = fx.multipart(fx.ana, "/v1/folders/" + folder + "/upload", name,
                text.getBytes(StandardCharsets.UTF_8));
        assertThat(up.status()).as(up.text()).isEqualTo(200);
        String file = up.json().path("id").asString();
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        while (Instant.now().isBefore(deadline)) {
            String status = fx.get(fx.ana, "/v1/folders/" + folder + "/files/" + file).json().path("processing_status").asString();
            if (status.equals("completed")) {
                return file;
            }
            assertThat(status).isNotEqualTo("error");
            Thread.sleep(50);
        }
        throw new AssertionError("file " + file + " still processing after 2 minutes");
    }

    private JsonNode files(String agent) {
        return fx.get(fx.ana, "/v1/agents/" + agent + "/files").json().path("files");
    }

    @Test
    void theLimitsAreSetOnCreateAndModifyAndShownAndUnsetOnesFollowTheContextWindow() {
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "reader", "max_files_open", 2,
                "per_file_view_window_char_limit", 4_000));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String id = created.json().path("id").asString();
        assertThat(created.json().path("max_files_open").asInt()).isEqualTo(2);
        assertThat(created.json().path("per_file_view_window_char_limit").asInt()).isEqualTo(4_000);

        ServerFixture.Response modified = fx.patch(fx.ana, "/v1/agents/" + id, obj("max_files_open", 7));
        assertThat(modified.status()).as(modified.text()).isEqualTo(200);
        JsonNode state = fx.get(fx.ana, "/v1/agents/" + id).json();
        assertThat(state.path("max_files_open").asInt()).isEqualTo(7);
        assertThat(state.path("per_file_view_window_char_limit").asInt()).as("kept").isEqualTo(4_000);

        JsonNode small = fx.post(fx.ana, "/v1/agents/", obj("name", "small", "context_window_limit", 8_000)).json();
        assertThat(small.path("max_files_open").asInt()).as("Letta's default for 8k tokens").isEqualTo(3);
        assertThat(small.path("per_file_view_window_char_limit").asInt()).isEqualTo(5_000);
    }

    @Test
    void badLimitsAreA422NamingTheFieldAndChangeNothing() {
        String id = fx.post(fx.ana, "/v1/agents/", obj("name", "keeper", "max_files_open", 4)).json().path("id").asString();
        JsonNode before = fx.get(fx.ana, "/v1/agents/" + id).json();
        List<Object[]> bad = List.of(new Object[] {"max_files_open", 0}, new Object[] {"max_files_open", -2},
                new Object[] {"max_files_open", 1_000_000}, new Object[] {"per_file_view_window_char_limit", 0},
                new Object[] {"per_file_view_window_char_limit", -1},
                new Object[] {"per_file_view_window_char_limit", 2_000_000_000}, new Object[] {"max_files_open", "many"});
        for (Object[] b : bad) {
            String field = (String) b[0];
            ServerFixture.Response patch = fx.patch(fx.ana, "/v1/agents/" + id, obj("description", "Changed", field, b[1]));
            assertThat(patch.status()).as(field + "=" + b[1] + ": " + patch.text()).isEqualTo(422);
            assertThat(patch.text()).contains(field);
            assertThat(fx.get(fx.ana, "/v1/agents/" + id).json()).as(field + "=" + b[1]).isEqualTo(before);
            ServerFixture.Response create = fx.post(fx.ana, "/v1/agents/", obj("name", "other", field, b[1]));
            assertThat(create.status()).as(create.text()).isEqualTo(422);
            assertThat(create.text()).contains(field);
        }
        assertThat(fx.get(fx.ana, "/v1/agents/count").json().asInt()).isEqualTo(1);
    }

    @Test
    void anotherUsersKeyCannotChangeTheLimits() {
        String id = fx.post(fx.ana, "/v1/agents/", obj("name", "keeper", "max_files_open", 4)).json().path("id").asString();
        ServerFixture.Response r = fx.patch(fx.ben, "/v1/agents/" + id, obj("max_files_open", 1));
        assertThat(r.status()).isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/agents/" + id).json().path("max_files_open").asInt()).isEqualTo(4);
    }

    @Test
    void theAgentsLimitsGovernOpeningAndTheWindowAndUploadsAfterAttachOpenWhileDeletedFilesLeave() throws Exception {
        String folder = folder("manuals");
        String first = upload(folder, "first.md", "# First\n" + "The first manual says a lot.\n".repeat(20));
        String id = fx.post(fx.ana, "/v1/agents/", obj("name", "reader", "max_files_open", 1,
                "per_file_view_window_char_limit", 150)).json().path("id").asString();
        assertThat(fx.patch(fx.ana, "/v1/agents/" + id + "/folders/attach/" + folder, obj()).status()).isEqualTo(200);
        assertThat(files(id)).singleElement().satisfies(f -> {
            assertThat(f.path("is_open").asBoolean()).isTrue();
            assertThat(f.path("visible_content").asString()).hasSize(150).endsWith("use functions to view the full content.");
        });

        String second = upload(folder, "second.md", "# Second\nThe boiler was serviced in May.\n");
        JsonNode after = files(id);
        assertThat(after).hasSize(2);
        assertThat(after.path(0).path("file_id").asString()).isEqualTo(first);
        assertThat(after.path(0).path("is_open").asBoolean()).as("closed: the agent keeps one open").isFalse();
        assertThat(after.path(1).path("file_id").asString()).isEqualTo(second);
        assertThat(after.path(1).path("is_open").asBoolean()).as("the upload opened").isTrue();
        assertThat(after.path(1).path("visible_content").asString()).contains("2: The boiler was serviced in May.");

        ServerFixture.Response opened = fx.patch(fx.ana, "/v1/agents/" + id + "/files/" + first + "/open", obj());
        assertThat(opened.status()).as(opened.text()).isEqualTo(200);
        assertThat(opened.json().path(0).asString()).isEqualTo("manuals/second.md");

        assertThat(fx.delete(fx.ana, "/v1/folders/" + folder + "/" + first).status()).isIn(200, 204);
        assertThat(files(id)).singleElement().satisfies(f -> assertThat(f.path("file_id").asString()).isEqualTo(second));
        assertThat(fx.get(fx.ana, "/v1/agents/" + id).json().path("memory").path("file_blocks")).singleElement()
                .satisfies(b -> assertThat(b.path("label").asString()).isEqualTo("manuals/second.md"));
    }
}
