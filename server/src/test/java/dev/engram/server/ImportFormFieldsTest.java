package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Letta's import form fields on {@code POST /v1/agents/import}: a model and a name instead of the file's, {@code _copy},
 * no messages; environment variables and secrets refused with a reason; a double-encoded file gets a new id; a model
 * at a provider Engram cannot run is kept; what is dropped is in the response.
 */
class ImportFormFieldsTest {
    private static final String FILE = """
            {"agents": [{"name": "helper", "id": "agent-0", "system": "s", "tool_ids": [],
              "llm_config": {"model": "glm-4.6", "model_endpoint_type": "zai"},
              "messages": [{"role": "user", "id": "message-1", "content": "Hi there"}], "in_context_message_ids": ["message-1"],
              "secrets": {"TOKEN": "t"}}],
             "blocks": [], "tools": [], "groups": [], "files": [], "sources": []}""";

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

    private ServerFixture.Response upload(String file, Map<String, String> fields) {
        String boundary = "----engram" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        fields.forEach((name, value) -> body.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name
                + "\"\r\n\r\n" + value + "\r\n").getBytes(StandardCharsets.UTF_8)));
        body.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"helper.af\"\r\n"
                + "Content-Type: application/json\r\n\r\n" + file + "\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return fx.send(HttpRequest.newBuilder(URI.create(fx.url("/v1/agents/import"))).header("Authorization", "Bearer " + fx.ana)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build());
    }

    @Test
    void modelNameCopySuffixAndStripMessagesWorkAsInLetta() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("override_model_handle", "openai/gpt-4o-mini");
        fields.put("override_name", "assistant");
        fields.put("append_copy_suffix", "true");
        fields.put("strip_messages", "true");
        ServerFixture.Response r = upload(FILE, fields);
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        String id = r.json().path("agent_ids").get(0).asString();
        assertThat(id).startsWith("agent-").isNotEqualTo("agent-0");
        JsonNode agent = fx.get(fx.ana, "/v1/agents/" + id).json();
        assertThat(agent.path("name").asString()).isEqualTo("assistant_copy");
        assertThat(agent.path("model").asString()).isEqualTo("openai/gpt-4o-mini");
        assertThat(fx.get(fx.ana, "/v1/agents/" + id + "/messages").json().toString()).doesNotContain("Hi there");
        assertThat(r.json().path("dropped_grants").toString()).contains("agents[0].secrets", "TOKEN");
    }

    @Test
    void aModelAtAProviderEngramCannotRunIsKeptOverHttpToo() {
        ServerFixture.Response r = upload(FILE, Map.of());
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("warnings").toString()).contains("zai:glm-4.6", "which Engram cannot run");
        assertThat(r.text()).doesNotContain("--model");
    }

    @Test
    void aDoubleEncodedFileGetsANewAgentId() {
        String encoded = ServerFixture.obj("x", FILE).path("x").toString();
        ServerFixture.Response r = upload(encoded, Map.of("model", "openai/gpt-4o-mini"));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("agent_ids").get(0).asString()).startsWith("agent-").isNotEqualTo("helper");
    }

    @Test
    void everyAgentOfAFileOfSeveralGetsANewAgentId() {
        String team = """
                {"agents": [{"name": "planner", "id": "agent-0", "system": "s", "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai"}},
                            {"name": "doer", "id": "agent-1", "system": "s", "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai"}}],
                 "blocks": [], "tools": []}""";
        ServerFixture.Response r = upload(team, Map.of());
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().path("agent_ids")).hasSize(2).allSatisfy(id -> assertThat(id.asString()).startsWith("agent-")
                .isNotIn("agent-0", "agent-1", "planner", "doer"));
    }

    @Test
    void secretsAndEnvironmentVariablesAreRefusedWithAReasonAndNothingIsImported() {
        for (String field : new String[] {"secrets", "env_vars_json"}) {
            ServerFixture.Response r = upload(FILE, Map.of(field, "{\"TOKEN\": \"t\"}"));
            assertThat(r.status()).isEqualTo(422);
            assertThat(r.text()).contains("does not take environment variables or secrets", field);
        }
        ServerFixture.Response bad = upload(FILE, Map.of("strip_messages", "maybe"));
        assertThat(bad.status()).isEqualTo(422);
        assertThat(fx.get(fx.ana, "/v1/agents/").json()).isEmpty();
    }
}
