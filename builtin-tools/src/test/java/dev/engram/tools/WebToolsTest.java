package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;
import tools.jackson.databind.json.JsonMapper;

/** The web tools against a local JDK HttpServer serving HTML fixtures (loopback allowed explicitly). */
class WebToolsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private HttpServer server;
    private String base;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        Map<String, String[]> pages = Map.of(
                "/article", new String[] {"text/html; charset=utf-8", """
                        <html><head><title>Tea Guide</title><script>alert('x')</script><style>p{}</style></head>
                        <body><h1>Green tea</h1><p>Brew at <b>80 °C</b> for <a href="/time">two minutes</a>.</p>
                        <ul><li>Sencha</li><li>Gyokuro</li></ul></body></html>"""},
                "/plain", new String[] {"text/plain", "just text"},
                "/image", new String[] {"image/png", "\u0089PNG"});
        pages.forEach((path, page) -> server.createContext(path, ex -> {
            byte[] body = page[1].getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", page[0]);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        }));
        server.createContext("/long", ex -> {
            StringBuilder html = new StringBuilder("<html><body>");
            for (int i = 0; i < 400; i++) {
                html.append("<p>Paragraph ").append(i).append(" about tea and its long history in many countries.</p>");
            }
            byte[] body = html.append("</body></html>").toString().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "text/html");
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        server.createContext("/loop", ex -> {
            ex.getResponseHeaders().add("Location", "/loop");
            ex.sendResponseHeaders(302, -1);
            ex.close();
        });
        server.createContext("/moved", ex -> {
            ex.getResponseHeaders().add("Location", "/plain");
            ex.sendResponseHeaders(301, -1);
            ex.close();
        });
        server.createContext("/missing", ex -> {
            ex.sendResponseHeaders(404, -1);
            ex.close();
        });
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private ToolResult call(WebFetcher fetcher, List<SearchProvider> providers, String tool, String args) {
        ToolRegistry registry = ToolRegistry.create().registerAll(BuiltinTools.web(fetcher, providers));
        return ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build().execute(ToolCall.of(tool, args), ToolContext.empty());
    }

    private ToolResult fetch(String path) {
        return call(WebFetcher.http(WebFetcherOptions.defaults().allowingPrivateAddresses()), List.of(), "web_fetch",
                "{\"url\":\"" + base + path + "\"}");
    }

    @Test
    void htmlBecomesMarkdown() {
        ToolResult r = fetch("/article");
        assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.content()).startsWith("# Tea Guide\n" + base + "/article\n\n").contains("Green tea", "**80 °C**",
                "[two minutes](" + base + "/time)", "* Sencha").doesNotContain("alert", "<p>");
    }

    @Test
    void longPagesComeInPagesWithTheOffsetToContinueFrom() {
        String first = fetch("/long").content();
        assertThat(first).contains("Paragraph 0").doesNotContain("Paragraph 399");
        String offset = first.replaceAll("(?s).*continue_from=(\\d+) for more]$", "$1");
        ToolResult next = call(WebFetcher.http(WebFetcherOptions.defaults().allowingPrivateAddresses()), List.of(), "web_fetch",
                "{\"url\":\"" + base + "/long\",\"continue_from\":" + offset + "}");
        assertThat(next.content()).doesNotContain("Paragraph 0 ").contains("Paragraph 1");
    }

    @Test
    void loopbackAndPrivateAddressesAreBlockedByDefault() {
        ToolResult r = call(WebFetcher.http(), List.of(), "web_fetch", "{\"url\":\"" + base + "/article\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).isEqualTo("Fetching 127.0.0.1 is blocked: it resolves to a private, loopback or otherwise non-public address.");
        assertThat(call(WebFetcher.http(), List.of(), "web_fetch", "{\"url\":\"http://10.1.2.3/\"}").content()).contains("is blocked");
        assertThat(call(WebFetcher.http(), List.of(), "web_fetch", "{\"url\":\"http://[::1]/\"}").content()).contains("is blocked");
        assertThat(call(WebFetcher.http(), List.of(), "web_fetch", "{\"url\":\"file:///etc/passwd\"}").content())
                .isEqualTo("Only http and https URLs can be fetched, not 'file:///etc/passwd'.");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://198.51.100.7/", "http://192.0.2.1/", "http://203.0.113.5/", "http://100.64.1.1/",
            "http://[::ffff:127.0.0.1]/", "http://[::127.0.0.1]/", "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::1]/"})
    void everySpecialPurposeRangeIsBlocked(String url) {
        ToolResult r = call(WebFetcher.http(), List.of(), "web_fetch", "{\"url\":\"" + url + "\"}");
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).as(url).contains("is blocked: it resolves to a private, loopback or otherwise non-public address.");
    }

    @Test
    void aNameIsCheckedAtTheLookupTheConnectionUses() {
        // "localhost" is looked up (from the hosts file) by the fetcher's own resolver, which refuses the
        // address it found and so hands the connection nothing to reach.
        ToolResult r = call(WebFetcher.http(), List.of(), "web_fetch",
                "{\"url\":\"http://localhost:" + server.getAddress().getPort() + "/article\"}");
        assertThat(r.content()).isEqualTo("Fetching localhost is blocked: it resolves to a private, loopback or otherwise "
                + "non-public address.");
        assertThat(fetchTier()).as("a URL carries data out, so a fetch is approved like a write")
                .isEqualTo(dev.engram.framework.SafetyTier.SIDE_EFFECTING);
    }

    private static dev.engram.framework.SafetyTier fetchTier() {
        return BuiltinTools.web(WebFetcher.http(), List.of()).stream().filter(t -> t.name().equals("web_fetch")).findFirst()
                .orElseThrow().safetyTier();
    }

    @Test
    void redirectsAreFollowedUpToTheLimitAndOtherFailuresAreClear() {
        assertThat(fetch("/moved").content()).contains(base + "/plain\n\njust text");
        assertThat(fetch("/loop").content()).isEqualTo("Fetching " + base + "/loop redirected more than 5 times.");
        assertThat(fetch("/image").content()).contains("is image/png, not text");
        assertThat(fetch("/missing").content()).isEqualTo("Fetching " + base + "/missing failed with HTTP 404.");
    }

    @Test
    void withoutAProviderWebSearchIsNotOffered() {
        assertThat(BuiltinTools.web(WebFetcher.http(), List.of())).extracting(t -> t.name()).containsExactly("web_fetch");
        assertThat(SearchProviders.fromEnvironment(java.util.Map.of())).isEmpty();
        assertThat(SearchProviders.fromEnvironment(java.util.Map.of("BRAVE_API_KEY", "b", "TAVILY_API_KEY", "t",
                "SEARXNG_URL", "http://searx.local"))).extracting(SearchProvider::name).containsExactly("brave", "tavily", "searxng");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SearchProviders.searxng(java.net.URI.create("file:///etc")))
                .hasMessageContaining("must be http(s)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SearchProviders.brave(" ")).hasMessageContaining("needs an API key");
    }

    /** Each provider against a local server answering in that provider's documented response shape. */
    @Test
    void braveTavilyAndSearxngAnswerInTheirOwnShapes() throws Exception {
        java.util.List<String> seen = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        server.createContext("/res/v1/web/search", ex -> {
            seen.add("brave " + ex.getRequestURI().getQuery() + " " + ex.getRequestHeaders().getFirst("X-Subscription-Token"));
            respond(ex, """
                    {"type": "search", "query": {"original": "green tea"}, "web": {"type": "search", "results": [
                      {"title": "Green tea - Wikipedia", "url": "https://en.wikipedia.org/wiki/Green_tea",
                       "description": "Green tea is a type of tea made from Camellia sinensis leaves.", "age": "2 days ago"},
                      {"title": "How to brew", "url": "https://example.org/brew", "description": "Use water at 80 C."}]}}""");
        });
        server.createContext("/tavily/search", ex -> {
            seen.add("tavily " + new String(ex.getRequestBody().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8) + " "
                    + ex.getRequestHeaders().getFirst("Authorization"));
            respond(ex, """
                    {"query": "green tea", "answer": null, "images": [], "results": [
                      {"title": "Green tea benefits", "url": "https://example.org/benefits", "content": "Antioxidants and more.",
                       "score": 0.93, "raw_content": null}], "response_time": 1.1}""");
        });
        server.createContext("/searx/search", ex -> {
            seen.add("searxng " + ex.getRequestURI().getQuery());
            respond(ex, """
                    {"query": "green tea", "number_of_results": 0, "results": [
                      {"url": "https://example.org/sencha", "title": "Sencha", "content": "A Japanese green tea.",
                       "engine": "duckduckgo", "engines": ["duckduckgo"], "score": 1.0, "category": "general"}],
                     "answers": [], "corrections": [], "infoboxes": [], "suggestions": [], "unresponsive_engines": []}""");
        });
        SearchProvider brave = SearchProviders.brave("brave-key", java.net.URI.create(base + "/res/v1/web/search"));
        SearchProvider tavily = SearchProviders.tavily("tvly-key", java.net.URI.create(base + "/tavily/search"));
        SearchProvider searxng = SearchProviders.searxng(java.net.URI.create(base + "/searx/"));

        assertThat(brave.search("green tea", 2)).containsExactly(
                new SearchProvider.WebResult("Green tea - Wikipedia", "https://en.wikipedia.org/wiki/Green_tea",
                        "Green tea is a type of tea made from Camellia sinensis leaves."),
                new SearchProvider.WebResult("How to brew", "https://example.org/brew", "Use water at 80 C."));
        assertThat(tavily.search("green tea", 3)).containsExactly(new SearchProvider.WebResult("Green tea benefits",
                "https://example.org/benefits", "Antioxidants and more."));
        assertThat(searxng.search("green tea", 3)).containsExactly(new SearchProvider.WebResult("Sencha",
                "https://example.org/sencha", "A Japanese green tea."));
        assertThat(seen).hasSize(3);
        assertThat(seen.get(0)).isEqualTo("brave q=green+tea&count=2 brave-key");
        assertThat(seen.get(1)).startsWith("tavily ").endsWith(" Bearer tvly-key");
        assertThat(JSON.readTree(seen.get(1).substring("tavily ".length(), seen.get(1).lastIndexOf(" Bearer"))))
                .isEqualTo(JSON.readTree("{\"query\":\"green tea\",\"max_results\":3}"));
        assertThat(seen.get(2)).isEqualTo("searxng format=json&q=green+tea");
        // Through the tool: a failing provider hands over to the next.
        server.createContext("/down", ex -> {
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        SearchProvider down = SearchProviders.brave("k", java.net.URI.create(base + "/down"));
        ToolResult r = call(WebFetcher.http(), List.of(down, searxng), "web_search", "{\"query\":\"green tea\"}");
        assertThat(r.content()).contains("Sencha");
        assertThat(call(WebFetcher.http(), List.of(down), "web_search", "{\"query\":\"tea\"}").content())
                .isEqualTo("No search provider returned results (brave: failed).");
    }

    private static void respond(com.sun.net.httpserver.HttpExchange ex, String json) throws java.io.IOException {
        byte[] body = json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(200, body.length);
        try (var out = ex.getResponseBody()) {
            out.write(body);
        }
    }

    @Test
    void webSearchFallsBackAlongTheChain() throws Exception {
        SearchProvider broken = new SearchProvider() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public List<WebResult> search(String query, int limit) {
                throw new IllegalStateException("down");
            }
        };
        SearchProvider working = new SearchProvider() {
            @Override
            public String name() {
                return "working";
            }

            @Override
            public List<WebResult> search(String query, int limit) {
                return List.of(new WebResult("Tea", "https://example.org/tea", "All about " + query));
            }
        };
        ToolResult r = call(WebFetcher.http(), List.of(broken, working), "web_search", "{\"query\":\"tea\",\"limit\":3}");
        assertThat(JSON.readTree(r.content())).isEqualTo(JSON.readTree(
                "[{\"title\":\"Tea\",\"url\":\"https://example.org/tea\",\"snippet\":\"All about tea\"}]"));
        assertThat(call(WebFetcher.http(), List.of(broken), "web_search", "{\"query\":\"tea\"}").content())
                .isEqualTo("No search provider returned results (broken: failed).");
    }
}
