package dev.engram.tools;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@link SearchProvider}s of real search APIs: Brave Search, Tavily and a SearXNG instance. Keys
 * and URLs come from the host, never from the model; the query goes to the provider, which is what a
 * web search is. {@link #fromEnvironment} builds the chain from the variables that are set.
 */
public final class SearchProviders {
    static final URI BRAVE = URI.create("https://api.search.brave.com/res/v1/web/search");
    static final URI TAVILY = URI.create("https://api.tavily.com/search");
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NORMAL).build();

    private SearchProviders() {
    }

    /**
     * The providers whose settings {@code environment} has, in this order: {@code BRAVE_API_KEY} (Brave
     * Search), {@code TAVILY_API_KEY} (Tavily), {@code SEARXNG_URL} (a SearXNG instance, with its JSON
     * format enabled). Empty when none is set: then {@code web_search} is not offered.
     */
    public static List<SearchProvider> fromEnvironment(Map<String, String> environment) {
        List<SearchProvider> out = new ArrayList<>();
        String brave = environment.getOrDefault("BRAVE_API_KEY", "");
        if (!brave.isBlank()) {
            out.add(brave(brave));
        }
        String tavily = environment.getOrDefault("TAVILY_API_KEY", "");
        if (!tavily.isBlank()) {
            out.add(tavily(tavily));
        }
        String searxng = environment.getOrDefault("SEARXNG_URL", "");
        if (!searxng.isBlank()) {
            out.add(searxng(URI.create(searxng)));
        }
        return List.copyOf(out);
    }

    /** Brave Search's web search API with this subscription token. */
    public static SearchProvider brave(String apiKey) {
        return brave(apiKey, BRAVE);
    }

    static SearchProvider brave(String apiKey, URI endpoint) {
        requireKey(apiKey, "Brave Search");
        return provider("brave", (query, limit) -> {
            URI uri = URI.create(endpoint + "?q=" + encode(query) + "&count=" + Math.min(limit, 20));
            JsonNode json = send(HttpRequest.newBuilder(uri).header("Accept", "application/json")
                    .header("X-Subscription-Token", apiKey).GET(), "brave");
            return results(json.path("web").path("results"), "description");
        });
    }

    /** Tavily's search API with this key. */
    public static SearchProvider tavily(String apiKey) {
        return tavily(apiKey, TAVILY);
    }

    static SearchProvider tavily(String apiKey, URI endpoint) {
        requireKey(apiKey, "Tavily");
        return provider("tavily", (query, limit) -> {
            String body = JSON.writeValueAsString(Map.of("query", query, "max_results", Math.min(limit, 20)));
            JsonNode json = send(HttpRequest.newBuilder(endpoint).header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + apiKey).POST(HttpRequest.BodyPublishers.ofString(body)), "tavily");
            return results(json.path("results"), "content");
        });
    }

    /** A SearXNG instance at {@code base} (its {@code json} output format must be enabled in its settings). */
    public static SearchProvider searxng(URI base) {
        Objects.requireNonNull(base, "base");
        if (!"http".equals(base.getScheme()) && !"https".equals(base.getScheme())) {
            throw new IllegalArgumentException("a SearXNG URL must be http(s), got " + base);
        }
        String root = base.toString().replaceAll("/+$", "");
        return provider("searxng", (query, limit) -> {
            URI uri = URI.create(root + "/search?format=json&q=" + encode(query));
            return results(send(HttpRequest.newBuilder(uri).header("Accept", "application/json").GET(), "searxng")
                    .path("results"), "content");
        });
    }

    /** A search function that may fail. */
    @FunctionalInterface
    private interface Search {
        List<SearchProvider.WebResult> search(String query, int limit) throws Exception;
    }

    private static SearchProvider provider(String name, Search search) {
        return new SearchProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<WebResult> search(String query, int limit) throws Exception {
                return search.search(query, limit);
            }

            @Override
            public String toString() {
                return "SearchProvider[" + name + "]";
            }
        };
    }

    private static JsonNode send(HttpRequest.Builder request, String provider) throws IOException, InterruptedException {
        HttpResponse<String> response = CLIENT.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IOException(provider + " answered HTTP " + response.statusCode());
        }
        return JSON.readTree(response.body());
    }

    private static List<SearchProvider.WebResult> results(JsonNode array, String snippetField) {
        List<SearchProvider.WebResult> out = new ArrayList<>();
        for (JsonNode r : array) {
            String url = r.path("url").asString("");
            if (!url.isBlank()) {
                out.add(new SearchProvider.WebResult(r.path("title").asString(""), url, r.path(snippetField).asString("")));
            }
        }
        return out;
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static void requireKey(String key, String what) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException(what + " needs an API key");
        }
    }
}
