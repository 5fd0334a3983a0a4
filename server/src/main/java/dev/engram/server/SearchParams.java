package dev.engram.server;

import dev.engram.memory.MemoryFilter;
import dev.engram.memory.Metadata;
import dev.engram.memory.SearchRequest;
import io.helidon.webserver.http.ServerRequest;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import tools.jackson.databind.JsonNode;

/**
 * Engram's search parameters beside Letta's, on the archival and note search routes: {@code filter} (a JSON filter in
 * Mem0's shape, see {@link MemoryFilter}), {@code min_score} and {@code as_of} (the facts that held at an ISO-8601
 * time). A bad value is a 422 naming the parameter and what is wrong; it is never ignored.
 */
final class SearchParams {
    private SearchParams() {
    }

    /** Adds the request's filter, minimum score and point in time to {@code search}. */
    static void apply(ServerRequest req, SearchRequest.Builder search) {
        Query.string(req, "filter").ifPresent(f -> {
            try {
                search.filter(MemoryFilter.parse(f));
            } catch (IllegalArgumentException e) {
                throw ApiException.invalid("value_error", e.getMessage(), "query", "filter");
            }
        });
        Query.string(req, "min_score").ifPresent(m -> {
            double min;
            try {
                min = Double.parseDouble(m);
            } catch (NumberFormatException e) {
                throw ApiException.invalid("float_parsing", "Input should be a valid number", "query", "min_score");
            }
            if (Double.isNaN(min) || Double.isInfinite(min)) {
                throw ApiException.invalid("float_parsing", "Input should be a finite number", "query", "min_score");
            }
            search.minScore(min);
        });
        Query.string(req, "as_of").ifPresent(t -> {
            try {
                search.asOf(OffsetDateTime.parse(t).toInstant());
            } catch (DateTimeParseException | IllegalArgumentException e) {
                throw ApiException.invalid("datetime_parsing", "Input should be a valid datetime (ISO 8601 with an offset)",
                        "query", "as_of");
            }
        });
    }

    /** The {@code metadata} object of a request body (Letta's field name), or none. */
    static Metadata metadata(Body body) {
        if (!body.has("metadata") || body.raw("metadata").map(JsonNode::isNull).orElse(true)) {
            return Metadata.empty();
        }
        JsonNode node = body.raw("metadata").orElseThrow();
        try {
            return Metadata.parse(node.toString());
        } catch (IllegalArgumentException e) {
            throw body.problem("value_error", e.getMessage(), "metadata");
        }
    }

    /** Metadata as JSON for a view. */
    static JsonNode json(Metadata metadata) {
        return Body.JSON.readTree(metadata.json());
    }
}
