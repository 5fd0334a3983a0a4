package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/** {@code POST /v1/agents/import} (multipart) and {@code GET /v1/agents/{id}/export} with Letta's own agent files. */
class AgentFileEndpointsTest {

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

    static List<String> files() throws IOException {
        Path files = Path.of("").toAbsolutePath().getParent().getParent().resolve("shared/data/agent-files");
        if (!Files.isDirectory(files)) {
            return List.of("(none)");
        }
        try (var s = Files.list(files)) {
            return s.filter(p -> p.toString().endsWith(".af")).map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static Path sharedFile(String name) {
        return Path.of("").toAbsolutePath().getParent().getParent().resolve("shared/data/agent-files").resolve(name);
    }

    ServerFixture.Response upload(String key, String fileName, byte[] content) {
        String boundary = "----engram" + UUID.randomUUID();
        byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + fileName
                + "\"\r\nContent-Type: application/json\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[head.length + content.length + tail.length];
        System.arraycopy(head, 0, body, 0, head.length);
        System.arraycopy(content, 0, body, head.length, content.length);
        System.arraycopy(tail, 0, body, head.length + content.length, tail.length);
        return fx.send(HttpRequest.newBuilder(URI.create(fx.url("/v1/agents/import"))).header("Authorization", "Bearer " + key)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
    }

    @ParameterizedTest
    @MethodSource("files")
    void lettasAgentFilesImportAndExportForTheirUserOnly(String name) throws IOException {
        assumeTrue(!name.equals("(none)"), "../shared/data/agent-files is absent (a clone without ../shared): skipped");
        ServerFixture.Response imported = upload(fx.ana, name, Files.readAllBytes(sharedFile(name)));
        assertThat(imported.status()).as(imported.text()).isEqualTo(200);
        JsonNode ids = imported.json().path("agent_ids");
        assertThat(ids).isNotEmpty();
        for (JsonNode id : ids) {
            JsonNode agent = fx.get(fx.ana, "/v1/agents/" + id.asString()).json();
            assertThat(agent.path("id").asString()).isEqualTo(id.asString());
            ServerFixture.Response exported = fx.get(fx.ana, "/v1/agents/" + id.asString() + "/export");
            assertThat(exported.status()).as(exported.text()).isEqualTo(200);
            assertThat(exported.json().path("agents").get(0).path("name").asString()).isEqualTo(agent.path("name").asString());
            assertThat(fx.get(fx.ben, "/v1/agents/" + id.asString()).status()).isEqualTo(404);
            assertThat(fx.get(fx.ben, "/v1/agents/" + id.asString() + "/export").status()).isEqualTo(404);
        }
        assertThat(fx.get(fx.ben, "/v1/agents/").json()).isEmpty();
    }

    @Test
    void aBadUploadIsRefusedAndImportsNothing() {
        assertThat(upload(fx.ana, "x.af", "not json".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(422);
        ServerFixture.Response wrong = upload(fx.ana, "x.af", "{\"agents\": [{\"name\": \"a\", \"messages\": [{\"role\": \"narrator\"}]}]}"
                .getBytes(StandardCharsets.UTF_8));
        assertThat(wrong.status()).isEqualTo(400);
        assertThat(wrong.detail()).contains("Nothing was stored");
        assertThat(fx.post(fx.ana, "/v1/agents/import", ServerFixture.obj("file", "x")).status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/agents/").json()).isEmpty();
    }

    @Test
    void aFileOfTwoAgentsOfOneNameImportsBothAsInLetta() {
        String openai = "\"llm_config\": {\"model\": \"m\", \"model_endpoint_type\": \"openai\"}";
        ServerFixture.Response twins = upload(fx.ana, "twins.af", ("{\"agents\": [{\"name\": \"Twin\", " + openai + "}, "
                + "{\"name\": \"Twin\", " + openai + "}]}").getBytes(StandardCharsets.UTF_8));
        assertThat(twins.status()).as(twins.text()).isEqualTo(200);
        assertThat(twins.json().path("agent_ids")).hasSize(2);
        assertThat(fx.get(fx.ana, "/v1/agents/?name=Twin").json()).hasSize(2);
    }

    @Test
    void anImportIsOneUnitOfWorkThatStoresNothingWhenItFailsHalfWay() {
        String openai = "\"llm_config\": {\"model\": \"m\", \"model_endpoint_type\": \"openai\"}";
        long before = fx.store.changes().lastSeq();
        // The first agent and its message are written before the second's message is refused (over the store's
        // MemoryLimits): the unit of work rolls the first back with it.
        ServerFixture.Response halfWay = upload(fx.ana, "two.af", ("{\"agents\": [{\"name\": \"First\", " + openai
                + ", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}, {\"name\": \"Second\", " + openai
                + ", \"messages\": [{\"role\": \"user\", \"content\": \"" + "x".repeat(1_000_001) + "\"}]}]}")
                .getBytes(StandardCharsets.UTF_8));
        assertThat(halfWay.status()).as(halfWay.text()).isEqualTo(400);
        assertThat(halfWay.detail()).contains("message content is 1000001 characters long").endsWith("Nothing was stored.");
        assertThat(fx.get(fx.ana, "/v1/agents/").json()).isEmpty();
        assertThat(fx.store.agents().list("ana")).isEmpty();
        assertThat(fx.store.changes().lastSeq()).as("change log").isEqualTo(before);
    }
}
