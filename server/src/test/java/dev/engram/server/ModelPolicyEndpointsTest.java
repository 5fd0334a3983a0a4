package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.engram.framework.ModelPolicy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Only the operator chooses where model requests go: an API user's model on create, PATCH or in an uploaded agent
 * file is a provider model or one the operator allowed ({@code --allow-model}); a 127.0.0.1 server stands in for a
 * cloud metadata endpoint and must never be called. A model that fails never shows its own words to the client.
 */
class ModelPolicyEndpointsTest {
    static final String SECRET = "AKIA-SECRET-ROLE-CREDENTIALS";

    @TempDir
    Path dir;
    ServerFixture fx;
    HttpServer metadata;
    final AtomicInteger metadataCalls = new AtomicInteger();

    @BeforeEach
    void start() throws IOException {
        metadata = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        metadata.createContext("/", ex -> {
            metadataCalls.incrementAndGet();
            byte[] body = ("{\"error\": {\"message\": \"" + SECRET + "\"}}").getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(500, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        metadata.start();
    }

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
        metadata.stop(0);
    }

    String metadataModel() {
        return "http://127.0.0.1:" + metadata.getAddress().getPort() + "/latest/meta-data#x";
    }

    List<String> attacks() {
        return List.of(metadataModel(), "http://169.254.169.254/latest/meta-data#x", "script:/etc/passwd", "SCRIPT:/etc/passwd",
                "http://127.0.0.1:" + metadata.getAddress().getPort() + "@169.254.169.254/v1#x");
    }

    ServerFixture.Response upload(String key, String file) {
        String boundary = "----engram" + UUID.randomUUID();
        String body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.af\"\r\n"
                + "Content-Type: application/json\r\n\r\n" + file + "\r\n--" + boundary + "--\r\n";
        return fx.send(HttpRequest.newBuilder(URI.create(fx.url("/v1/agents/import"))).header("Authorization", "Bearer " + key)
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    static String lettaFile(String engram) {
        return """
                {"agents": [{"name": "Imported", "system": "s", "enable_sleeptime": true,
                   "llm_config": {"model": "gpt-4o-mini", "model_endpoint_type": "openai"}, "metadata": {"engram": %s}}],
                 "blocks": [], "tools": []}""".formatted(engram);
    }

    @Test
    void anApiUsersModelIsRefusedOnCreateWithA422NamingTheFieldAndNothingIsStored() {
        fx = new ServerFixture(dir);
        for (String spec : attacks()) {
            ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", obj("name", "evil", "model", spec));
            assertThat(r.status()).as(spec).isEqualTo(422);
            JsonNode problem = r.json().path("detail").get(0);
            assertThat(problem.path("loc").toString()).isEqualTo("[\"body\",\"model\"]");
            assertThat(problem.path("msg").asString()).startsWith("Model not allowed: '" + spec + "'")
                    .contains("openai:MODEL", "--allow-model PATTERN");
            ServerFixture.Response viaConfig = fx.post(fx.ana, "/v1/agents/", obj("name", "evil2", "llm_config",
                    obj("model_endpoint_type", "openai", "model", spec)));
            assertThat(viaConfig.status()).as(spec).isEqualTo(422);
            assertThat(viaConfig.json().path("detail").get(0).path("loc").toString()).isEqualTo("[\"body\",\"llm_config\",\"model\"]");
        }
        assertThat(fx.store.agents().list("ana")).isEmpty();
        assertThat(metadataCalls).hasValue(0);
    }

    @Test
    void anApiUsersModelIsRefusedOnPatchAndTheAgentKeepsItsModel() {
        fx = new ServerFixture(dir);
        String agent = fx.agent(fx.ana, "helper");
        for (String spec : attacks()) {
            ServerFixture.Response r = fx.patch(fx.ana, "/v1/agents/" + agent, obj("model", spec, "enable_sleeptime", true));
            assertThat(r.status()).as(spec).isEqualTo(422);
            assertThat(r.json().path("detail").get(0).path("loc").toString()).isEqualTo("[\"body\",\"model\"]");
        }
        JsonNode state = fx.get(fx.ana, "/v1/agents/" + agent).json();
        assertThat(state.path("model").asString()).isEqualTo("test:echo");
        assertThat(state.path("enable_sleeptime").asBoolean()).isFalse();
        assertThat(fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("hi")).status()).isEqualTo(200);
        assertThat(metadataCalls).hasValue(0);
    }

    @Test
    void anUploadedFilesModelsAreRefusedTheSleeptimeCompanionsToo() {
        fx = new ServerFixture(dir);
        for (String spec : attacks()) {
            for (String engram : List.of("{\"model\": \"" + spec + "\"}", "{\"sleeptime\": {\"model\": \"" + spec + "\"}}")) {
                ServerFixture.Response r = upload(fx.ana, lettaFile(engram));
                assertThat(r.status()).as(engram).isEqualTo(400);
                assertThat(r.detail()).contains("is not a model an agent file may choose: '" + spec + "'", "Nothing was stored");
            }
        }
        assertThat(fx.store.agents().list("ana")).isEmpty();
        assertThat(metadataCalls).hasValue(0);
    }

    @Test
    void anUploadGrantsNothingReportsWhatItDroppedAndBelongsToTheCaller() {
        fx = new ServerFixture(dir);
        ServerFixture.Response r = upload(fx.ana, lettaFile("""
                {"approval_mode": "yolo", "max_steps": 2147483647, "sleeptime": {"model": "openai:gpt-4o-mini"}}"""));
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        String id = r.json().path("agent_ids").get(0).asString();
        List<String> fields = new java.util.ArrayList<>();
        r.json().path("dropped_grants").forEach(g -> fields.add(g.path("field").asString()));
        assertThat(fields).containsExactlyInAnyOrder(
                "agents[0].metadata.engram.approval_mode", "agents[0].metadata.engram.max_steps");
        assertThat(r.json().path("dropped_grants").get(0).path("reason").asString()).isNotBlank();
        assertThat(fx.server.runtime().agent("ana", id).definition().approvalMode()).isEqualTo(dev.engram.framework.ApprovalMode.AUTO);
        assertThat(fx.server.runtime().agent("ana", id).definition().maxSteps()).isEqualTo(50);
        assertThat(fx.get(fx.ben, "/v1/agents/" + id).status()).isEqualTo(404);
    }

    @Test
    void theOperatorsPatternsAllowEndpointsAndScriptsAndAFailingModelShowsNoneOfItsWords() throws IOException {
        Path scripts = Files.createDirectories(dir.resolve("scripts"));
        Path reply = Files.writeString(scripts.resolve("reply.json"), """
                {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "Scripted hello."}}]}]}""");
        Path broken = Files.writeString(scripts.resolve("broken.json"), SECRET + " is not JSON");
        String endpoint = "http://127.0.0.1:" + metadata.getAddress().getPort();
        fx = new ServerFixture(dir, b -> b.modelPolicy(ModelPolicy.providersOnly().allow(endpoint + "/*")
                .allow("script:" + scripts + "/*")));

        for (Map.Entry<String, String> model : Map.of("endpoint", endpoint + "/v1#llama", "script", "script:" + broken).entrySet()) {
            ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", model.getKey(), "model", model.getValue()));
            assertThat(created.status()).as(created.text()).isEqualTo(200);
            String agent = created.json().path("id").asString();
            ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("hi"));
            assertThat(r.status()).as(model.getKey()).isEqualTo(502);
            assertThat(r.text()).contains("The agent's model failed", "incident").doesNotContain(SECRET)
                    .doesNotContain("Exception").doesNotContain("at dev.engram");
            List<String> events = fx.stream(fx.ana, "/v1/agents/" + agent + "/messages/stream", fx.userMessage("hi"));
            assertThat(String.join("\n", events)).contains("The agent's model failed").doesNotContain(SECRET)
                    .doesNotContain("Exception");
        }
        assertThat(metadataCalls.get()).as("the allowed endpoint was called").isPositive();

        ServerFixture.Response scripted = fx.post(fx.ana, "/v1/agents/", obj("name", "scripted", "model", "script:" + reply));
        assertThat(scripted.status()).isEqualTo(200);
        ServerFixture.Response hello = fx.post(fx.ana, "/v1/agents/" + scripted.json().path("id").asString() + "/messages",
                fx.userMessage("hi"));
        assertThat(hello.text()).contains("Scripted hello.");
        // Beside the patterns, nothing more is allowed.
        assertThat(fx.post(fx.ana, "/v1/agents/", obj("name", "x", "model", "script:/etc/passwd")).status()).isEqualTo(422);
        assertThat(fx.post(fx.ana, "/v1/agents/", obj("name", "y", "model", "script:" + scripts + "/../x")).status()).isEqualTo(422);
    }
}
