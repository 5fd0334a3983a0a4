package dev.engram.server;

import dev.engram.framework.ModelPolicy;
import dev.engram.framework.model.ModelSpec;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The model specs this server can run, for {@code GET /v1/models/}: the operator's default model first; then each
 * provider whose key (or, for Ollama, {@code OLLAMA_HOST}) the operator's environment sets, with the models that
 * provider's own models endpoint lists (the keys and base URLs {@code ModelSpec.parse} reads); then the operator's
 * allowed endpoints ({@code --allow-model}): an exact spec as it is, a pattern ({@code http://host/v1#*}) with the
 * models its endpoint lists that the pattern allows. A provider that does not answer within a few seconds is left
 * out (and logged): the list is what can run now. Every spec listed is one the model policy allows.
 */
final class ModelCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(ModelCatalog.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final String defaultModel;
    private final ModelPolicy policy;
    private final Map<String, String> env;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    ModelCatalog(String defaultModel, ModelPolicy policy, Map<String, String> env) {
        this.defaultModel = defaultModel;
        this.policy = policy;
        this.env = Map.copyOf(env);
    }

    /** The specs, the default model first, each once. */
    List<String> specs() {
        Set<String> specs = new LinkedHashSet<>();
        specs.add(defaultModel);
        if (set("OPENAI_API_KEY")) {
            String base = env.getOrDefault("OPENAI_BASE_URL", "https://api.openai.com/v1");
            openAiModels(base, env.get("OPENAI_API_KEY")).forEach(m -> specs.add("openai:" + m));
        }
        if (set("ANTHROPIC_API_KEY")) {
            String base = env.getOrDefault("ANTHROPIC_BASE_URL", "https://api.anthropic.com");
            ids(get(base.replaceAll("/+$", "") + "/v1/models", Map.of("x-api-key", env.get("ANTHROPIC_API_KEY"),
                    "anthropic-version", "2023-06-01")), "data", "id").forEach(m -> specs.add("anthropic:" + m));
        }
        if (set("GEMINI_API_KEY") || set("GOOGLE_API_KEY")) {
            String base = env.getOrDefault("GEMINI_BASE_URL", "https://generativelanguage.googleapis.com");
            String key = set("GEMINI_API_KEY") ? env.get("GEMINI_API_KEY") : env.get("GOOGLE_API_KEY");
            ids(get(base.replaceAll("/+$", "") + "/v1beta/models", Map.of("x-goog-api-key", key)), "models", "name")
                    .forEach(m -> specs.add("gemini:" + (m.startsWith("models/") ? m.substring(7) : m)));
        }
        if (set("OLLAMA_HOST")) {
            String host = env.get("OLLAMA_HOST");
            String base = (host.startsWith("http") ? host : "http://" + host).replaceAll("/+$", "");
            openAiModels(base.endsWith("/v1") ? base : base + "/v1", null).forEach(m -> specs.add("ollama:" + m));
        }
        for (String pattern : policy.patterns()) {
            if (!ModelSpec.namesEndpoint(pattern)) {
                continue;
            }
            int hash = pattern.indexOf('#');
            if (hash < 0) {
                continue;
            }
            String endpoint = pattern.substring(0, hash);
            if (!pattern.contains("*") && !pattern.contains("?")) {
                specs.add(pattern);
            } else if (!endpoint.contains("*") && !endpoint.contains("?")) {
                String key = env.get(ModelSpec.endpointKeyVariable(URI.create(endpoint)));
                openAiModels(endpoint, key).forEach(m -> specs.add(endpoint + "#" + m));
            }
        }
        specs.removeIf(s -> !s.equals(defaultModel) && !policy.allows(s));
        return List.copyOf(specs);
    }

    private boolean set(String variable) {
        String v = env.get(variable);
        return v != null && !v.isBlank();
    }

    /** The model ids of an OpenAI-compatible endpoint ({@code GET {base}/models}, {@code data[].id}). */
    private List<String> openAiModels(String base, String key) {
        return ids(get(base.replaceAll("/+$", "") + "/models", key == null || key.isBlank() ? Map.of()
                : Map.of("Authorization", "Bearer " + key)), "data", "id");
    }

    private static List<String> ids(Optional<JsonNode> body, String list, String field) {
        List<String> out = new ArrayList<>();
        body.ifPresent(b -> b.path(list).forEach(m -> {
            String id = m.path(field).asString("");
            if (!id.isBlank() && id.chars().noneMatch(c -> c <= ' ')) {
                out.add(id);
            }
        }));
        return out;
    }

    /** A provider's JSON answer; empty (logged) when it fails, answers other than 200 or is not JSON. */
    private Optional<JsonNode> get(String url, Map<String, String> headers) {
        try {
            HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).GET();
            headers.forEach(req::header);
            HttpResponse<String> res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
            if (res.statusCode() != 200) {
                LOG.warn("Listing the models at {} answered HTTP {}; its models are not listed", url, res.statusCode());
                return Optional.empty();
            }
            return Optional.of(Body.JSON.readTree(res.body()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("Listing the models at {} failed ({}); its models are not listed", url, e.toString());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
