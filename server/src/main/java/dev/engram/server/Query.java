package dev.engram.server;

import io.helidon.webserver.http.ServerRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Query parameters, read with the contract's types; a bad value is a 422 naming the parameter. */
final class Query {
    private Query() {
    }

    static Optional<String> string(ServerRequest req, String name) {
        return req.query().first(name).asOptional().filter(v -> !v.isEmpty());
    }

    /** Every value of a repeated parameter ({@code tags=a&tags=b}), commas not split. */
    static List<String> all(ServerRequest req, String name) {
        return req.query().contains(name) ? new ArrayList<>(req.query().all(name)) : List.of();
    }

    static boolean bool(ServerRequest req, String name, boolean otherwise) {
        Optional<String> v = string(req, name);
        if (v.isEmpty()) {
            return otherwise;
        }
        return switch (v.get().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "1", "yes", "on" -> true;
            case "false", "0", "no", "off" -> false;
            default -> throw ApiException.invalid("bool_parsing", "Input should be a valid boolean, unable to interpret input",
                    "query", name);
        };
    }

    static Optional<Integer> integer(ServerRequest req, String name, int min, int max) {
        Optional<String> v = string(req, name);
        if (v.isEmpty()) {
            return Optional.empty();
        }
        int n;
        try {
            n = Integer.parseInt(v.get());
        } catch (NumberFormatException e) {
            throw ApiException.invalid("int_parsing", "Input should be a valid integer, unable to parse string as an integer",
                    "query", name);
        }
        if (n < min || n > max) {
            throw ApiException.invalid("value_error", "Input should be between " + min + " and " + max, "query", name);
        }
        return Optional.of(n);
    }
}
