package dev.engram.tools;

import java.net.URI;

/**
 * Fetches a web page for {@code web_fetch}. The default, {@link #http(WebFetcherOptions)}, is a
 * {@code java.net.http} client with timeouts, a size cap, a redirect limit, http(s) only, and private
 * and loopback addresses blocked.
 */
@FunctionalInterface
public interface WebFetcher {
    /**
     * Fetches {@code uri}. Throw {@link dev.engram.framework.ToolException} with a message for the
     * model when the page cannot be had (blocked, too large, not text, HTTP error).
     */
    FetchedPage fetch(URI uri) throws Exception;

    static WebFetcher http(WebFetcherOptions options) {
        return new HttpWebFetcher(options);
    }

    static WebFetcher http() {
        return new HttpWebFetcher(WebFetcherOptions.defaults());
    }

    /**
     * A fetched page.
     *
     * @param uri         where it ended up, after redirects
     * @param status      the HTTP status
     * @param contentType its media type, e.g. {@code text/html}
     * @param body        the text
     */
    record FetchedPage(URI uri, int status, String contentType, String body) {
    }
}
