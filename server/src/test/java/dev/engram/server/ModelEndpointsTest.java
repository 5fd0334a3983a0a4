package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.engram.framework.ModelPolicy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /v1/models/}: the default model first, then the models of the providers the operator's environment
 * configures (listed by a 127.0.0.1 server speaking OpenAI's and Anthropic's wire formats), then the operator's
 * allowed endpoints; each handle is one an agent can be created with. {@code /v1/models/embedding} lists the bundled
 * embedding models.
 */
class ModelEndpointsTest {
    @TempDir
    Path dir;
    HttpServer provider;
    final List<String> seen = new CopyOnWriteArrayList<>();
    ServerFixture fx;

    @BeforeEach
    void startProvider() throws IOException {
        provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        provider.createContext("/", ex -> {
            String path = ex.getRequestURI().getPath();
            seen.add(path + " " + ex.getRequestHeaders().getFirst("Authorization") + " "
                    + ex.getRequestHeaders().getFirst("x-api-key"));
            String body = switch (path) {
                case "/openai/v1/models" -> "{\"object\":\"list\",\"data\":[{\"id\":\"gpt-4o-mini\"},{\"id\":\"gpt-4.1\"}]}";
                case "/anthropic/v1/models" -> "{\"data\":[{\"id\":\"claude-sonnet-4-5\",\"type\":\"model\"}]}";
                case "/local/v1/models" -> "{\"data\":[{\"id\":\"llama-3.1-8b\"},{\"id\":\"qwen\"}]}";
                default -> null;
            };
            byte[] bytes = (body == null ? "{\"error\":\"no\"}" : body).getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
            ex.getResponseBody().write(bytes);
            ex.close();
        });
        provider.start();
    }

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
        provider.stop(0);
    }

    private String base() {
        return "http://127.0.0.1:" + provider.getAddress().getPort();
    }

    @Test
    void listsTheDefaultModelFirstThenConfiguredProvidersThenAllowedEndpoints() {
        fx = new ServerFixture(dir, b -> b.environment(Map.of("OPENAI_API_KEY", "sk-openai-test", "OPENAI_BASE_URL",
                        base() + "/openai/v1", "ANTHROPIC_API_KEY", "sk-ant-test", "ANTHROPIC_BASE_URL", base() + "/anthropic"))
                .modelPolicy(ModelPolicy.providersOnly().allow(base() + "/local/v1#llama*")
                        .allow("http://10.1.2.3:8000/v1#exact-model")));
        ServerFixture.Response r = fx.get(fx.ben, "/v1/models/");
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        List<String> handles = r.json().valueStream().map(m -> m.path("handle").asString()).toList();
        assertThat(handles).containsExactly("test:echo", "openai/gpt-4o-mini", "openai/gpt-4.1",
                "anthropic/claude-sonnet-4-5", base() + "/local/v1#llama-3.1-8b", "http://10.1.2.3:8000/v1#exact-model");
        JsonNode openai = r.json().path(1);
        assertThat(openai.path("name").asString()).isEqualTo("gpt-4o-mini");
        assertThat(openai.path("provider_type").asString()).isEqualTo("openai");
        assertThat(openai.path("model_endpoint_type").asString()).isEqualTo("openai");
        assertThat(openai.path("model_type").asString()).isEqualTo("llm");
        assertThat(openai.path("context_window").asInt()).isPositive();
        assertThat(openai.path("max_context_window").asInt()).isGreaterThanOrEqualTo(openai.path("context_window").asInt());
        JsonNode local = r.json().path(4);
        assertThat(local.path("model_endpoint").asString()).isEqualTo(base() + "/local/v1");
        assertThat(local.path("name").asString()).isEqualTo("llama-3.1-8b");
        assertThat(seen).contains("/openai/v1/models Bearer sk-openai-test null", "/anthropic/v1/models null sk-ant-test");
        assertThat(r.text()).doesNotContain("sk-openai-test").doesNotContain("sk-ant-test");

        assertThat(fx.get(fx.ben, "/v1/models").json()).isEqualTo(r.json());
        assertThat(fx.get(fx.ben, "/v1/models/?provider_type=anthropic").json().valueStream()
                .map(m -> m.path("handle").asString()).toList()).containsExactly("anthropic/claude-sonnet-4-5");

        // Letta Code creates its agents with the first handle listed, and any other listed handle works too
        for (String handle : List.of(handles.getFirst(), handles.get(4))) {
            ServerFixture.Response created = fx.post(fx.ben, "/v1/agents/", ServerFixture.obj("name", "coder", "model", handle));
            assertThat(created.status()).as(created.text()).isEqualTo(200);
            fx.delete(fx.ben, "/v1/agents/" + created.json().path("id").asString());
        }
    }

    /** An agent's {@code llm_config.model_endpoint} is where its model is really called: OPENAI_BASE_URL when set. */
    @Test
    void llmConfigShowsTheEndpointTheModelIsReallyCalledAt() {
        fx = new ServerFixture(dir, b -> b.environment(Map.of("OPENAI_API_KEY", "sk-openai-test", "OPENAI_BASE_URL",
                base() + "/openai/v1", "OLLAMA_HOST", "gpu-box:11434")));
        ServerFixture.Response created = fx.post(fx.ben, "/v1/agents/", ServerFixture.obj("name", "coder", "model",
                "openai/gpt-4o-mini"));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        JsonNode llm = created.json().path("llm_config");
        assertThat(llm.path("model_endpoint").asString()).isEqualTo(base() + "/openai/v1");
        assertThat(llm.path("model_endpoint_type").asString()).isEqualTo("openai");
        String id = created.json().path("id").asString();
        assertThat(fx.get(fx.ben, "/v1/agents/" + id).json().path("llm_config").path("model_endpoint").asString())
                .isEqualTo(base() + "/openai/v1");
        ServerFixture.Response ollama = fx.post(fx.ben, "/v1/agents/", ServerFixture.obj("name", "local", "model",
                "ollama/llama3.2"));
        assertThat(ollama.status()).as(ollama.text()).isEqualTo(200);
        assertThat(ollama.json().path("llm_config").path("model_endpoint").asString()).isEqualTo("http://gpu-box:11434/v1");
    }

    @Test
    void withoutABaseUrlLlmConfigShowsTheProvidersOwnEndpoint() {
        fx = new ServerFixture(dir, b -> b.environment(Map.of("OPENAI_API_KEY", "sk-openai-test")));
        ServerFixture.Response created = fx.post(fx.ben, "/v1/agents/", ServerFixture.obj("name", "coder", "model",
                "openai/gpt-4o-mini"));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        assertThat(created.json().path("llm_config").path("model_endpoint").asString()).isEqualTo("https://api.openai.com/v1");
    }

    @Test
    void aProviderThatFailsIsLeftOutAndNothingElseIsListedWithoutKeys() {
        fx = new ServerFixture(dir, b -> b.environment(Map.of("OPENAI_API_KEY", "sk-openai-test", "OPENAI_BASE_URL",
                base() + "/missing/v1")));
        ServerFixture.Response r = fx.get(fx.ana, "/v1/models/");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().valueStream().map(m -> m.path("handle").asString()).toList()).containsExactly("test:echo");
        assertThat(seen).containsExactly("/missing/v1/models Bearer sk-openai-test null");
    }

    @Test
    void badFiltersAreRefusedAndAKeyIsNeeded() {
        fx = new ServerFixture(dir, b -> b.environment(Map.of()));
        ServerFixture.Response bad = fx.get(fx.ana, "/v1/models/?provider_type=acme");
        assertThat(bad.status()).isEqualTo(422);
        assertThat(bad.text()).contains("provider_type").contains("acme");
        assertThat(fx.get(fx.ana, "/v1/models/?provider_category=free").status()).isEqualTo(422);
        assertThat(fx.get(null, "/v1/models/").status()).isEqualTo(401);
        assertThat(fx.get(fx.ana, "/v1/models/?provider_category=byok").json().size()).isZero();
    }

    @Test
    void embeddingModelsAreTheBundledOnesDefaultFirst() {
        fx = new ServerFixture(dir, b -> b.environment(Map.of()));
        for (String path : List.of("/v1/models/embedding", "/v1/models/embedding/", "/v1/models/embeddings")) {
            ServerFixture.Response r = fx.get(fx.ana, path);
            assertThat(r.status()).as(path).isEqualTo(200);
            assertThat(r.json().valueStream().map(m -> m.path("handle").asString()).toList())
                    .containsExactly("engram/bge-small", "engram/minilm");
            assertThat(r.json().path(0).path("embedding_dim").asInt()).isEqualTo(384);
            assertThat(r.json().path(0).path("model_type").asString()).isEqualTo("embedding");
        }
    }
}
