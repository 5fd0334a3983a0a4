package dev.engram.server;

import io.helidon.webserver.http.ServerRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Letta's cursor pagination: {@code before} and {@code after} name an item's id, {@code limit} bounds the
 * page, {@code order} ({@code asc} or {@code desc}, by creation) orders it. A page after a cursor holds the
 * items that follow it in that order; before a cursor, those that precede it, nearest first kept.
 *
 * @param before    only items before the one with this id
 * @param after     only items after the one with this id
 * @param limit     the most items in the page
 * @param ascending oldest first
 */
record Pages(Optional<String> before, Optional<String> after, int limit, boolean ascending) {
    /** The largest page the server returns. */
    static final int MAX_LIMIT = 1_000;

    /** The paging parameters of a request, with the endpoint's default limit and order; a 422 for bad values. */
    static Pages of(ServerRequest req, int defaultLimit, boolean ascendingByDefault) {
        int n = Query.integer(req, "limit", 1, MAX_LIMIT).orElse(defaultLimit);
        boolean ascending = ascendingByDefault;
        Optional<String> order = Query.string(req, "order");
        if (order.isPresent()) {
            ascending = switch (order.get()) {
                case "asc" -> true;
                case "desc" -> false;
                default -> throw ApiException.invalid("literal_error", "Input should be 'asc' or 'desc'", "query", "order");
            };
        } else if (Query.string(req, "ascending").isPresent()) {
            ascending = Query.bool(req, "ascending", ascendingByDefault);
        }
        return new Pages(Query.string(req, "before"), Query.string(req, "after"), n, ascending);
    }

    /**
     * The page of {@code oldestFirst} (every item, oldest first) these parameters select; a 404 when a cursor
     * names no item.
     */
    <T> List<T> page(List<T> oldestFirst, Function<T, String> id, String what) {
        List<T> ordered = new ArrayList<>(oldestFirst);
        if (!ascending) {
            Collections.reverse(ordered);
        }
        int from = 0;
        int to = ordered.size();
        if (after.isPresent()) {
            from = indexOf(ordered, id, after.get(), what) + 1;
        }
        if (before.isPresent()) {
            to = indexOf(ordered, id, before.get(), what);
        }
        if (from >= to) {
            return List.of();
        }
        List<T> range = ordered.subList(from, to);
        if (range.size() <= limit) {
            return List.copyOf(range);
        }
        return List.copyOf(before.isPresent() && after.isEmpty() ? range.subList(range.size() - limit, range.size())
                : range.subList(0, limit));
    }

    private static <T> int indexOf(List<T> items, Function<T, String> id, String cursor, String what) {
        for (int i = 0; i < items.size(); i++) {
            if (id.apply(items.get(i)).equals(cursor)) {
                return i;
            }
        }
        throw ApiException.notFound("The cursor names no " + what + " with id '" + cursor + "'.");
    }
}
