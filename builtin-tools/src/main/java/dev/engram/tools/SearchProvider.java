package dev.engram.tools;

import java.util.List;

/**
 * A web search backend for {@code web_search}. Several can be chained: the tool asks each in turn
 * until one answers with results.
 */
public interface SearchProvider {
    /** A short name for messages, e.g. {@code searxng}. */
    String name();

    /** Up to {@code limit} results; throw to let the next provider try. */
    List<WebResult> search(String query, int limit) throws Exception;

    /** One result. */
    record WebResult(String title, String url, String snippet) {
    }
}
