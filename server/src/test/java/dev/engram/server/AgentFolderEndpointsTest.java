package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.tools.PdfFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Folders attached to agents over HTTP, as Letta's agent routes have them: attach and detach (at folders and sources,
 * bringing and taking the file tools), the agent's folders and files, opening and closing files, and an agent that
 * finds a sentence of page 3 of a PDF with {@code semantic_search_files}, opens the file and greps it.
 */
class AgentFolderEndpointsTest {
    private static final List<String> FILE_TOOLS = List.of("open_files", "grep_files", "semantic_search_files");

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
        ServerFixture.Response r = fx.post(key, "/v1/folders/", obj("name", name, "instructions", "Cite the page."));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("id").asString();
    }

    /** Uploads a file and waits until it is processed; returns its id. */
    private String upload(String key, String folder, String name, byte[] content) throws InterruptedException {
        ServerFixture.Response up = fx.multipart(key, "/v1/folders/" + folder + "/upload", name, content);
        assertThat(up.status()).as(up.text()).isEqualTo(200);
        String file = up.json().path("id").asString();
        Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
        while (Instant.now().isBefore(deadline)) {
            String status = fx.get(key, "/v1/folders/" + folder + "/files/" + file).json().path("processing_status").asString();
            if (status.equals("completed")) {
                return file;
            }
            assertThat(status).isNotEqualTo("error");
            Thread.sleep(50);
        }
        throw new AssertionError("file " + file + " still processing after 2 minutes");
    }

    private static List<String> toolNames(JsonNode state) {
        return state.path("tools").valueStream().map(t -> t.path("name").asString()).toList();
    }

    @Test
    void anAttachedFolderBringsFileToolsFilesOpenAndCloseAndDetachingTakesThemAway() throws Exception {
        fx = new ServerFixture(dir);
        String folder = folder(fx.ana, "manuals");
        String pdf = upload(fx.ana, folder, "boiler.pdf", PdfFiles.threePageManual());
        String notes = upload(fx.ana, folder, "notes.md", "# Notes\nService every spring.\n".getBytes(StandardCharsets.UTF_8));
        String agent = fx.agent(fx.ana, "helper");

        ServerFixture.Response attached = fx.patch(fx.ana, "/v1/agents/" + agent + "/folders/attach/" + folder, obj());
        assertThat(attached.status()).as(attached.text()).isEqualTo(200);
        assertThat(toolNames(attached.json())).containsAll(FILE_TOOLS);
        assertThat(attached.json().path("sources").path(0).path("id").asString()).isEqualTo(folder);
        assertThat(attached.json().path("memory").path("file_blocks")).hasSize(2);
        assertThat(fx.get(fx.ana, "/v1/folders/" + folder + "/agents").json().path(0).asString()).isEqualTo(agent);
        assertThat(fx.get(fx.ana, "/v1/sources/" + folder + "/agents").json().path(0).asString()).isEqualTo(agent);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/folders").json().path(0).path("name").asString()).isEqualTo("manuals");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/sources").json()).hasSize(1);

        JsonNode files = fx.get(fx.ana, "/v1/agents/" + agent + "/files").json();
        assertThat(files.path("has_more").asBoolean()).isFalse();
        assertThat(files.path("files").valueStream().map(f -> f.path("file_name").asString()))
                .containsExactly("manuals/boiler.pdf", "manuals/notes.md");
        assertThat(files.path("files").valueStream().allMatch(f -> f.path("is_open").asBoolean())).isTrue();
        assertThat(files.path("files").path(1).path("visible_content").asString()).isEqualTo("1: # Notes\n2: Service every spring.");
        JsonNode firstPage = fx.get(fx.ana, "/v1/agents/" + agent + "/files?limit=1").json();
        assertThat(firstPage.path("has_more").asBoolean()).isTrue();
        assertThat(firstPage.path("next_cursor").asString()).isEqualTo(pdf);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/files?limit=1&after=" + pdf).json().path("files").path(0)
                .path("file_id").asString()).isEqualTo(notes);

        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/files/close-all", obj()).json().valueStream()
                .map(JsonNode::asString)).containsExactly("manuals/boiler.pdf", "manuals/notes.md");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/files?is_open=true").json().path("files")).isEmpty();
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/files/" + pdf + "/open", obj()).json()).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/files?is_open=true").json().path("files").path(0)
                .path("file_id").asString()).isEqualTo(pdf);
        ServerFixture.Response closed = fx.patch(fx.ana, "/v1/agents/" + agent + "/files/" + pdf + "/close", obj());
        assertThat(closed.json().path("message").asString()).isEqualTo("File id=" + pdf + " successfully closed");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/files?is_open=false").json().path("files")).hasSize(2);

        ServerFixture.Response detached = fx.patch(fx.ana, "/v1/agents/" + agent + "/sources/detach/" + folder, obj());
        assertThat(detached.status()).as(detached.text()).isEqualTo(200);
        assertThat(toolNames(detached.json())).doesNotContainAnyElementsOf(FILE_TOOLS);
        assertThat(detached.json().path("sources")).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/files").json().path("files")).isEmpty();
        assertThat(fx.get(fx.ana, "/v1/folders/" + folder + "/agents").json()).isEmpty();
    }

    @Test
    void theAgentFindsPageThreeOfAPdfWithSemanticSearchThenOpensAndGrepsIt() throws Exception {
        ScriptedChatModel model = ScriptedChatModel.fromJson("""
                {"turns": [
                  {"tool_calls": [{"name": "semantic_search_files", "arguments": {"query": "At what pressure does the relief valve open?", "limit": 3}}]},
                  {"tool_calls": [{"name": "open_files", "arguments": {"file_requests": [{"file_name": "manuals/boiler.pdf"}], "close_all_others": true}}]},
                  {"tool_calls": [{"name": "grep_files", "arguments": {"pattern": "relief valve", "context_lines": 0}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "It opens at three bar (page 3)."}}]}
                ]}""");
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:script", model)));
        String folder = folder(fx.ana, "manuals");
        upload(fx.ana, folder, "boiler.pdf", PdfFiles.threePageManual());
        upload(fx.ana, folder, "notes.md", "# Notes\nService every spring.\n".getBytes(StandardCharsets.UTF_8));
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "reader", "model", "test:script",
                "folder_ids", List.of(folder)));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String agent = created.json().path("id").asString();
        assertThat(toolNames(created.json())).containsAll(FILE_TOOLS);
        fx.patch(fx.ana, "/v1/agents/" + agent + "/files/close-all", obj());

        ServerFixture.Response turn = fx.post(fx.ana, "/v1/agents/" + agent + "/messages",
                fx.userMessage("At what pressure does the relief valve open?"));
        assertThat(turn.status()).as(turn.text()).isEqualTo(200);
        assertThat(turn.text()).contains("It opens at three bar");

        List<ChatRequest> requests = model.requests();
        assertThat(system(requests.get(0))).contains("<directories>", "<directory name=\"manuals\">",
                "<instructions>Cite the page.</instructions>", "<file status=\"closed\" name=\"manuals/boiler.pdf\">")
                .doesNotContain(PdfFiles.PAGE_THREE);
        assertThat(requests.get(0).tools().stream().map(t -> t.name())).containsAll(FILE_TOOLS);
        String found = lastToolResult(requests.get(1));
        assertThat(found).startsWith("Found ").contains("=== manuals/boiler.pdf (passage #1) ===", PdfFiles.PAGE_THREE);
        assertThat(lastToolResult(requests.get(2))).isEqualTo("* Opened manuals/boiler.pdf");
        assertThat(system(requests.get(2))).contains("<file status=\"open\" name=\"manuals/boiler.pdf\">", PdfFiles.PAGE_THREE,
                "- current_files_open=1");
        assertThat(lastToolResult(requests.get(3))).contains("Found 1 total matches across 1 files",
                "=== manuals/boiler.pdf:", "> ", PdfFiles.PAGE_THREE);
    }

    private static String system(ChatRequest request) {
        return ((ChatMessage.System) request.messages().get(0)).text();
    }

    private static String lastToolResult(ChatRequest request) {
        ChatMessage last = request.messages().get(request.messages().size() - 1);
        assertThat(last).isInstanceOf(ChatMessage.ToolResult.class);
        assertThat(((ChatMessage.ToolResult) last).isError()).as(((ChatMessage.ToolResult) last).content()).isFalse();
        return ((ChatMessage.ToolResult) last).content();
    }

    @Test
    void badFoldersFilesAndParametersAre4xxAndChangeNothing() throws Exception {
        fx = new ServerFixture(dir);
        String folder = folder(fx.ana, "manuals");
        String file = upload(fx.ana, folder, "notes.md", "Service every spring.".getBytes(StandardCharsets.UTF_8));
        String bens = folder(fx.ben, "bens");
        String agent = fx.agent(fx.ana, "helper");
        JsonNode before = fx.get(fx.ana, "/v1/agents/" + agent).json();

        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/folders/attach/source-nope", obj()).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/folders/attach/" + bens, obj()).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent + "/files/" + file + "/open", obj()).status())
                .as("its folder is not attached").isEqualTo(404);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/files?limit=0").status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent).json()).isEqualTo(before);

        ServerFixture.Response unknown = fx.post(fx.ana, "/v1/agents/", obj("name", "reader", "source_ids", List.of(bens)));
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.detail()).contains(bens, "source_ids");
        assertThat(fx.get(fx.ana, "/v1/agents/count").json().asInt()).isEqualTo(1);
        ServerFixture.Response modify = fx.patch(fx.ana, "/v1/agents/" + agent, obj("folder_ids", List.of(folder)));
        assertThat(modify.status()).isEqualTo(422);
        assertThat(modify.text()).contains("folders/attach");
        assertThat(fx.get(fx.ana, "/v1/agents/" + agent).json()).isEqualTo(before);
    }

    @Test
    void anotherUsersKeyFindsNeitherTheAgentsFoldersNorItsFilesAndChangesNothing() throws Exception {
        fx = new ServerFixture(dir);
        String folder = folder(fx.ana, "manuals");
        String file = upload(fx.ana, folder, "notes.md", "Service every spring.".getBytes(StandardCharsets.UTF_8));
        String agent = fx.agent(fx.ana, "helper");
        fx.patch(fx.ana, "/v1/agents/" + agent + "/folders/attach/" + folder, obj());
        String benAgent = fx.agent(fx.ben, "bens-helper");

        for (String path : List.of("/folders/attach/" + folder, "/folders/detach/" + folder, "/sources/detach/" + folder,
                "/files/close-all", "/files/" + file + "/close", "/files/" + file + "/open")) {
            assertThat(fx.patch(fx.ben, "/v1/agents/" + agent + path, obj()).status()).as(path).isEqualTo(404);
        }
        for (String path : List.of("/folders", "/sources", "/files")) {
            assertThat(fx.get(fx.ben, "/v1/agents/" + agent + path).status()).as(path).isEqualTo(404);
        }
        assertThat(fx.patch(fx.ben, "/v1/agents/" + benAgent + "/folders/attach/" + folder, obj()).status()).isEqualTo(404);
        assertThat(fx.patch(fx.ben, "/v1/agents/" + benAgent + "/files/" + file + "/open", obj()).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/folders/" + folder + "/agents").status()).isEqualTo(404);
        JsonNode files = fx.get(fx.ana, "/v1/agents/" + agent + "/files").json().path("files");
        assertThat(files).hasSize(1);
        assertThat(files.path(0).path("is_open").asBoolean()).isTrue();
        assertThat(fx.get(fx.ana, "/v1/folders/" + folder + "/agents").json()).hasSize(1);
    }
}
