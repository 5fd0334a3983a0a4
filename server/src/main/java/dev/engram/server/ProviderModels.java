package dev.engram.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Asks a provider which models it has, in its own wire format: OpenAI-compatible ({@code GET {base}/models},
 * {@code data[].id}, a bearer key; Ollama's {@code /v1} too), Anthropic ({@code GET {base}/v1/models}, {@code x-api-key})
 * and Gemini ({@code GET {base}/v1beta/models}, {@code x-goog-api-key}, {@code models[].name}). The listing of
 * {@code GET /v1/models/} and the {@code check} of {@code /v1/providers} both come here.
 */
final class ProviderModels {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** Engram's provider of each Letta provider type a server can register, and its own endpoint. */
    static final Map<String, String> TYPES = Map.of("openai", "openai", "anthropic", "anthropic", "google_ai", "gemini",
            "ollama", "ollama");
    private static final Map<String, String> STANDARD = Map.of("openai", "https://api.openai.com/v1", "anthropic",
            "https://api.anthropic.com", "google_ai", "https://generativelanguage.googleapis.com", "ollama",
            "http://localhost:11434/v1");

    /** Why a provider's models could not be listed, as a sentence (never the provider's own error text). */
    static final class Failed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failed(String message) {
            super(message, null, false, false);
        }
    }

    private ProviderModels() {
    }

    /**
     * The base URL a provider of {@code type} is reached at: {@code baseUrl}, or the provider's own when empty (Ollama's
     * OpenAI-compatible {@code /v1} under either).
     */
    static String base(String type, String baseUrl) {
        String base = (baseUrl.isBlank() ? STANDARD.get(type) : baseUrl).replaceAll("/+$", "");
        return type.equals("ollama") && !base.endsWith("/v1") ? base + "/v1" : base;
    }

    /**
     * The model ids a provider of Letta's {@code type} lists at {@code baseUrl} (its own endpoint when empty).
     *
     * @throws Failed if it does not answer within 5 s, answers other than 200, or not with its format
     */
    static List<String> list(String type, String baseUrl, String key) {
        String base = base(type, baseUrl);
        return switch (type) {
            case "anthropic" -> ids(get(base + "/v1/models", Map.of("x-api-key", key, "anthropic-version", "2023-06-01")),
                    "data", "id");
            case "google_ai" -> ids(get(base + "/v1beta/models", Map.of("x-goog-api-key", key)), "models", "name").stream()
                    .map(m -> m.startsWith("models/") ? m.substring(7) : m).toList();
            default -> ids(get(base + "/models", key.isBlank() ? Map.of() : Map.of("Authorization", "Bearer " + key)),
                    "data", "id");
        };
    }

    private static List<String> ids(JsonNode body, String list, String field) {
        if (!body.path(list).isArray()) {
            throw new Failed("the provider's answer has no '" + list + "' list of models");
        }
        List<String> out = new ArrayList<>();
        body.path(list).forEach(m -> {
            String id = m.path(field).asString("");
            if (!id.isBlank() && id.chars().noneMatch(c -> c <= ' ')) {
                out.add(id);
            }
        });
        return out;
    }

    private static JsonNode get(String url, Map<String, String> headers) {
        HttpResponse<String> res;
        try {
            HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).GET();
            headers.forEach(req::header);
            res = HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException | IllegalArgumentException e) {
            throw new Failed(url + " could not be reached (" + e.getClass().getSimpleName() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failed("the server is stopping");
        }
        if (res.statusCode() == 401 || res.statusCode() == 403) {
            throw new Failed(url + " did not accept the key (HTTP " + res.statusCode() + ")");
        }
        if (res.statusCode() != 200) {
            throw new Failed(url + " answered HTTP " + res.statusCode());
        }
        try {
            return Body.JSON.readTree(res.body());
        } catch (RuntimeException e) {
            throw new Failed(url + " did not answer with JSON");
        }
    }
}
