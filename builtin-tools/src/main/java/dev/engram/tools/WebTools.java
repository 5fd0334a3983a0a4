package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.vladsch.flexmark.html2md.converter.FlexmarkHtmlConverter;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;

/** {@code web_fetch} (pages as Markdown, in pages of text) and {@code web_search} (a chain of providers). */
final class WebTools {
    static final int PAGE_CHARS = 8_000;
    static final int MAX_RESULTS = 20;

    private WebTools() {
    }

    record FetchInput(@JsonPropertyDescription("The http or https URL.") String url,
            @JsonPropertyDescription("Character offset to continue from, as a previous answer said; default 0.") Optional<Integer> continueFrom) {
    }

    record SearchInput(@JsonPropertyDescription("What to search the web for.") String query,
            @JsonPropertyDescription("How many results, 1 to 20; default 5.") Optional<Integer> limit) {
    }

    static AiTool<FetchInput, String> fetch(WebFetcher fetcher) {
        FlexmarkHtmlConverter converter = FlexmarkHtmlConverter.builder().build();
        return AiTool.of("web_fetch", "Fetch a web page and read it as Markdown. Long pages come in parts of about "
                + PAGE_CHARS + " characters; each answer says the offset to continue from.", FetchInput.class,
                // Side-effecting, not read-only: a URL the model chooses carries data out (to any host), so
                // in ASK and AUTO mode a fetch is approved like any other write.
                SafetyTier.SIDE_EFFECTING, (in, ctx) -> {
                    URI uri;
                    try {
                        uri = new URI(in.url().strip());
                    } catch (URISyntaxException e) {
                        throw new ToolException("'" + in.url() + "' is not a valid URL: " + e.getReason() + ".");
                    }
                    int offset = in.continueFrom().orElse(0);
                    if (offset < 0) {
                        throw new ToolException("continue_from must not be negative.");
                    }
                    WebFetcher.FetchedPage page = fetcher.fetch(uri);
                    String title = "";
                    String text;
                    if (page.contentType().contains("html")) {
                        Document doc = Jsoup.parse(page.body(), page.uri().toString());
                        doc.select("script, style, noscript, iframe, svg").remove();
                        // Absolute links, so that the model can fetch them.
                        doc.select("a[href]").forEach(a -> a.attr("href", a.absUrl("href")));
                        doc.select("img[src]").forEach(i -> i.attr("src", i.absUrl("src")));
                        title = doc.title();
                        text = converter.convert(doc.outerHtml()).strip();
                    } else {
                        text = page.body().strip();
                    }
                    if (offset > text.length()) {
                        throw new ToolException("continue_from " + offset + " is past the end of the page (" + text.length()
                                + " characters).");
                    }
                    int end = Math.min(text.length(), offset + PAGE_CHARS);
                    if (end < text.length()) {
                        int para = text.lastIndexOf("\n\n", end);
                        if (para > offset + PAGE_CHARS / 2) {
                            end = para;
                        }
                    }
                    StringBuilder out = new StringBuilder();
                    out.append(title.isBlank() ? "" : "# " + title + "\n").append(page.uri()).append("\n\n")
                            .append(text, offset, end);
                    if (end < text.length()) {
                        out.append("\n\n[characters ").append(offset).append('-').append(end).append(" of ").append(text.length())
                                .append("; call web_fetch with continue_from=").append(end).append(" for more]");
                    }
                    return out.toString();
                });
    }

    static AiTool<SearchInput, List<SearchProvider.WebResult>> search(List<SearchProvider> providers) {
        List<SearchProvider> chain = List.copyOf(providers);
        return AiTool.of("web_search", "Search the web. Returns results with title, url and snippet; read a result with "
                + "web_fetch.", SearchInput.class, SafetyTier.READ_ONLY, (in, ctx) -> {
                    if (chain.isEmpty()) {
                        throw new ToolException("web_search is not available: no search provider is configured for this "
                                + "agent. Answer from memory, or ask the user for a link and use web_fetch.");
                    }
                    int limit = in.limit().orElse(5);
                    if (limit < 1 || limit > MAX_RESULTS) {
                        throw new ToolException("limit must be between 1 and " + MAX_RESULTS + ", got " + limit + ".");
                    }
                    if (in.query().isBlank()) {
                        throw new ToolException("query is empty.");
                    }
                    List<String> failures = new ArrayList<>();
                    for (SearchProvider p : chain) {
                        try {
                            List<SearchProvider.WebResult> results = p.search(in.query(), limit);
                            if (results != null && !results.isEmpty()) {
                                return results.subList(0, Math.min(limit, results.size()));
                            }
                            failures.add(p.name() + ": no results");
                        } catch (InterruptedException e) {
                            throw e;
                        } catch (Exception e) {
                            failures.add(p.name() + ": failed");
                        }
                    }
                    throw new ToolException("No search provider returned results (" + String.join("; ", failures) + ").");
                });
    }
}
