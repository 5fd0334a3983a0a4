package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.engram.framework.ModelPolicy;
import dev.engram.memory.ProviderRecord;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /v1/providers}: an admin key registers a provider (a 127.0.0.1 server speaking OpenAI's wire format that takes
 * one key); its key is kept sealed with the operator's {@code ENGRAM_SECRETS_KEY} and never answered; {@code check}
 * asks the provider; its models are listed and an agent on one of them talks to it with that key, within the
 * operator's {@code --allow-model} patterns.
 */
class ProviderEndpointsTest {
    static final String PROVIDER_KEY = "sk-registered-provider-key";
    static final String SECRETS_KEY = Base64.getEncoder().encodeToString(new byte[32]);

    @TempDir
    Path dir;
    HttpServer provider;
    final List<String> seen = new CopyOnWriteArrayList<>();
    ServerFixture fx;

    @BeforeEach
    void startProvider() throws IOException {
        provider = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        provider.createContext("/", ex -> {
            String auth = String.valueOf(ex.getRequestHeaders().getFirst("Authorization"));
            seen.add(ex.getRequestMethod() + " " + ex.getRequestURI().getPath() + " " + auth);
            ex.getRequestBody().readAllBytes();
            String body;
            int status = 200;
            if (!auth.equals("Bearer " + PROVIDER_KEY)) {
                status = 401;
                body = "{\"error\":{\"message\":\"bad key\"}}";
            } else if (ex.getRequestURI().getPath().equals("/v1/models")) {
                body = "{\"data\":[{\"id\":\"local-llm\"}]}";
            } else {
                body = "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{"
                        + "\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"send_message\",\"arguments\":"
                        + "\"{\\\"message\\\":\\\"hello from the registered provider\\\"}\"}}]},\"finish_reason\":"
                        + "\"tool_calls\"}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5}}";
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(status, bytes.length);
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
        return "http://127.0.0.1:" + provider.getAddress().getPort() + "/v1";
    }

    private void start(Map<String, String> env) {
        fx = new ServerFixture(dir, b -> b.environment(env).modelPolicy(ModelPolicy.providersOnly().allow(base() + "#*")));
    }

    @Test
    void aRegisteredProviderIsSealedCheckedListedAndUsable() {
        start(Map.of(ProviderSecrets.KEY_VARIABLE, SECRETS_KEY));
        ServerFixture.Response created = fx.post(fx.admin, "/v1/providers/", obj("name", "gpu-box", "provider_type", "openai",
                "api_key", PROVIDER_KEY, "base_url", base()));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String id = created.json().path("id").asString();
        assertThat(created.json().path("provider_category").asString()).isEqualTo("byok");
        assertThat(created.text()).doesNotContain(PROVIDER_KEY);
        ProviderRecord stored = fx.store.providers().get(id).orElseThrow();
        assertThat(stored.sealedApiKey()).doesNotContain(PROVIDER_KEY).startsWith("aesgcm1:");
        assertThat(fx.get(fx.admin, "/v1/providers/").text()).contains(id).doesNotContain(PROVIDER_KEY);
        assertThat(fx.get(fx.admin, "/v1/providers/" + id).text()).doesNotContain(PROVIDER_KEY);

        ServerFixture.Response check = fx.post(fx.admin, "/v1/providers/" + id + "/check", obj());
        assertThat(check.status()).as(check.text()).isEqualTo(200);
        assertThat(check.json().path("models").get(0).asString()).isEqualTo("local-llm");
        ServerFixture.Response wrong = fx.post(fx.admin, "/v1/providers/check", obj("provider_type", "openai", "api_key",
                "sk-wrong", "base_url", base()));
        assertThat(wrong.status()).isEqualTo(400);
        assertThat(wrong.detail()).contains("did not accept the key").doesNotContain("bad key");

        ServerFixture.Response models = fx.get(fx.ana, "/v1/models/");
        assertThat(models.json().valueStream().map(m -> m.path("handle").asString()).toList())
                .containsExactly("test:echo", base() + "#local-llm");
        assertThat(models.json().path(1).path("provider_name").asString()).isEqualTo("gpu-box");
        assertThat(models.json().path(1).path("provider_category").asString()).isEqualTo("byok");

        ServerFixture.Response agent = fx.post(fx.ana, "/v1/agents/", obj("name", "on-gpu", "model", base() + "#local-llm"));
        assertThat(agent.status()).as(agent.text()).isEqualTo(200);
        ServerFixture.Response answer = fx.post(fx.ana, "/v1/agents/" + agent.json().path("id").asString() + "/messages",
                fx.userMessage("hi"));
        assertThat(answer.status()).as(answer.text()).isEqualTo(200);
        assertThat(answer.text()).contains("hello from the registered provider");
        assertThat(seen).contains("POST /v1/chat/completions Bearer " + PROVIDER_KEY);

        ServerFixture.Response rotated = fx.patch(fx.admin, "/v1/providers/" + id, obj("api_key", "sk-rotated"));
        assertThat(rotated.status()).isEqualTo(200);
        assertThat(fx.post(fx.admin, "/v1/providers/" + id + "/check", obj()).status()).isEqualTo(400);
        assertThat(fx.delete(fx.admin, "/v1/providers/" + id).status()).isEqualTo(200);
        assertThat(fx.store.providers().list()).isEmpty();
    }

    @Test
    void aRefreshListsTheProvidersModelsAgainAndSaysWhyWhenItCannot() {
        start(Map.of(ProviderSecrets.KEY_VARIABLE, SECRETS_KEY));
        String id = fx.post(fx.admin, "/v1/providers/", obj("name", "gpu-box", "provider_type", "openai", "api_key", PROVIDER_KEY,
                "base_url", base())).json().path("id").asString();
        seen.clear();
        ServerFixture.Response refreshed = fx.patch(fx.admin, "/v1/providers/" + id + "/refresh", null);
        assertThat(refreshed.status()).as(refreshed.text()).isEqualTo(200);
        assertThat(refreshed.json().path("id").asString()).isEqualTo(id);
        assertThat(refreshed.text()).doesNotContain(PROVIDER_KEY);
        assertThat(seen).containsExactly("GET /v1/models Bearer " + PROVIDER_KEY);
        assertThat(fx.patch(fx.ben, "/v1/providers/" + id + "/refresh", null).status()).isEqualTo(403);
        assertThat(fx.patch(fx.admin, "/v1/providers/provider-nope/refresh", null).status()).isEqualTo(404);
        fx.patch(fx.admin, "/v1/providers/" + id, obj("api_key", "sk-rotated"));
        ServerFixture.Response refused = fx.patch(fx.admin, "/v1/providers/" + id + "/refresh", null);
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.detail()).contains("did not accept the key");
        assertThat(fx.store.providers().get(id)).isPresent();
    }

    @Test
    void withoutTheOperatorsKeyNothingIsStoredAndTheMessageNamesTheVariable() {
        start(Map.of());
        ServerFixture.Response r = fx.post(fx.admin, "/v1/providers/", obj("name", "gpu-box", "provider_type", "openai",
                "api_key", PROVIDER_KEY, "base_url", base()));
        assertThat(r.status()).isEqualTo(501);
        assertThat(r.detail()).contains("ENGRAM_SECRETS_KEY").contains("Nothing was stored");
        assertThat(fx.store.providers().list()).isEmpty();
    }

    @Test
    void badInputIsRefusedAndNothingIsStored() {
        start(Map.of(ProviderSecrets.KEY_VARIABLE, SECRETS_KEY));
        List<Object> bodies = List.of(
                obj("name", "x", "provider_type", "bedrock", "api_key", "k"),
                obj("name", "x", "provider_type", "openai"),
                obj("name", " ", "provider_type", "openai", "api_key", "k"),
                obj("name", "x", "provider_type", "openai", "api_key", "k", "base_url", "file:///etc/passwd"),
                obj("name", "x", "provider_type", "openai", "api_key", "k", "base_url", "http://user:pw@host/v1"),
                obj("name", "x", "provider_type", "openai", "api_key", "k", "region", "us-east-1"));
        for (Object body : bodies) {
            ServerFixture.Response r = fx.post(fx.admin, "/v1/providers/", body);
            assertThat(r.status()).as("%s: %s", body, r.text()).isEqualTo(422);
        }
        assertThat(fx.store.providers().list()).isEmpty();
        assertThat(fx.post(fx.admin, "/v1/providers/", obj("name", "one", "provider_type", "anthropic", "api_key", "k"))
                .status()).isEqualTo(200);
        assertThat(fx.post(fx.admin, "/v1/providers/", obj("name", "one", "provider_type", "openai", "api_key", "k2"))
                .status()).isEqualTo(409);
        assertThat(fx.store.providers().list()).hasSize(1);
        assertThat(fx.get(fx.admin, "/v1/providers/provider-nope").status()).isEqualTo(404);
    }

    @Test
    void aUsersKeyCannotSeeOrRegisterProviders() {
        start(Map.of(ProviderSecrets.KEY_VARIABLE, SECRETS_KEY));
        String id = fx.post(fx.admin, "/v1/providers/", obj("name", "gpu-box", "provider_type", "openai", "api_key",
                PROVIDER_KEY, "base_url", base())).json().path("id").asString();
        assertThat(fx.get(fx.ben, "/v1/providers/").status()).isEqualTo(403);
        assertThat(fx.get(fx.ben, "/v1/providers/" + id).status()).isEqualTo(403);
        assertThat(fx.post(fx.ben, "/v1/providers/", obj("name", "mine", "provider_type", "openai", "api_key", "k"))
                .status()).isEqualTo(403);
        assertThat(fx.patch(fx.ben, "/v1/providers/" + id, obj("api_key", "sk-ben")).status()).isEqualTo(403);
        assertThat(fx.delete(fx.ben, "/v1/providers/" + id).status()).isEqualTo(403);
        assertThat(fx.post(fx.ben, "/v1/providers/" + id + "/check", obj()).status()).isEqualTo(403);
        assertThat(fx.store.providers().list()).extracting(ProviderRecord::name).containsExactly("gpu-box");
        assertThat(fx.post(fx.admin, "/v1/providers/" + id + "/check", obj()).status()).isEqualTo(200);
    }

    @Test
    void aSecretsKeyThatIsNotAnAesKeyStopsTheServerFromStarting() {
        assertThatThrownBy(() -> start(Map.of(ProviderSecrets.KEY_VARIABLE, "c2hvcnQ=")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ENGRAM_SECRETS_KEY")
                .hasMessageContaining("openssl rand -base64 32");
    }
}
