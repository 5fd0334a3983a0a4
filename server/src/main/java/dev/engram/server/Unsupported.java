package dev.engram.server;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * An operation of Letta's self-hosted API (the contract's method and path template) that this server does not
 * implement, why, and what to use instead: a request to it answers 501 with a Letta error body whose detail says both.
 * {@link UnsupportedOperations#ALL} is the one table of them; {@code LettaContractCoverageTest} checks that every
 * operation of the contract is a route or in that table (never both), and the server README's list of unsupported
 * operations is generated from it.
 *
 * <p>What no route and no entry takes: a path of Letta Cloud's API (templates, projects, pipelines, feeds, access
 * tokens, environments, internal routes) answers 501 saying so; a known path with another method 405 with
 * {@code Allow}; anything else under {@code /v1/} 404, as Letta's own server answers a path it does not have.
 *
 * @param method  the operation's HTTP method
 * @param path    the contract's path template ({@code /v1/groups/{group_id}})
 * @param why     why Engram does not implement it, a sentence
 * @param instead what to use instead, a sentence
 */
record Unsupported(Method method, String path, String why, String instead) {
    /** The first segment after {@code /v1/} of Letta Cloud's paths, which no self-hosted Letta server has. */
    static final Set<String> CLOUD_SEGMENTS = Set.of("templates", "legacy-templates", "projects", "pipelines", "feeds",
            "client-side-access-tokens", "environments", "deployments");

    Unsupported {
        Objects.requireNonNull(method, "method");
        if (!path.startsWith("/v1/")) {
            throw new IllegalArgumentException("An unsupported operation's path starts with /v1/: " + path);
        }
        if (why.isBlank() || instead.isBlank()) {
            throw new IllegalArgumentException("An unsupported operation says why and what to use instead: " + path);
        }
    }

    /** An entry of the table. */
    static Unsupported of(Method method, String path, String why, String instead) {
        return new Unsupported(method, path, why, instead);
    }

    /** The entry's template. */
    PathTemplate template() {
        return PathTemplate.of(path);
    }

    /** The 501 for a request to this operation, naming the request, why, and what to use instead. */
    ApiException answer(String method, String requestPath) {
        return ApiException.of(Status.NOT_IMPLEMENTED_501, method + " " + requestPath + " is not supported by this Engram "
                + "server: " + why + " Instead: " + instead);
    }

    /** Whether a path is one of Letta Cloud's (its first segment after {@code /v1/}), or an {@code _internal_} route. */
    static boolean cloud(String path) {
        List<String> segments = PathTemplate.of(path).segments();
        if (segments.size() < 3 || !segments.get(1).equals("v1")) {
            return false;
        }
        return CLOUD_SEGMENTS.contains(segments.get(2)) || segments.get(2).startsWith("_internal_");
    }

    /**
     * Registers the table's answers before the routes (so that {@code GET /v1/blocks/count}, say, is not taken by
     * {@code GET /v1/blocks/{block_id}}): a request an entry matches answers the entry's 501, unless a route of the
     * table matches it more specifically (then the routing goes on to that route).
     */
    static void registerBefore(HttpRouting.Builder routing, List<Unsupported> table, List<Route> routes) {
        Set<String> registered = new LinkedHashSet<>();
        for (Unsupported u : table) {
            String bare = u.path.endsWith("/") ? u.path.substring(0, u.path.length() - 1) : u.path;
            for (String p : List.of(bare, bare + "/")) {
                if (registered.add(u.method.text() + " " + p)) {
                    routing.route(u.method, p, (req, res) -> answer(req, res, table, routes));
                }
            }
        }
    }

    private static void answer(ServerRequest req, ServerResponse res, List<Unsupported> table, List<Route> routes) {
        Method method = req.prologue().method();
        String path = req.path().path();
        Optional<Unsupported> entry = table.stream().filter(u -> u.method.equals(method) && u.template().matches(path))
                .max(Comparator.comparing(Unsupported::template, Unsupported::specificity));
        boolean routeWins = entry.isEmpty() || routes.stream().anyMatch(r -> r.method().equals(method)
                && PathTemplate.of(r.path()).matches(path) && PathTemplate.of(r.path()).moreSpecificThan(entry.get().template()));
        if (routeWins) {
            res.next();
            return;
        }
        throw entry.get().answer(method.text(), path);
    }

    private static int specificity(PathTemplate a, PathTemplate b) {
        return a.moreSpecificThan(b) ? 1 : b.moreSpecificThan(a) ? -1 : 0;
    }

    /**
     * Registers the answer to a request under {@code /v1/} that no route and no entry took: Letta Cloud's paths 501,
     * a path the server knows with another method 405 (with {@code Allow}), anything else 404.
     */
    static void registerCatchAll(HttpRouting.Builder routing, List<Unsupported> table, List<Route> routes) {
        routing.any("/v1/*", (req, res) -> {
            String method = req.prologue().method().text();
            String path = req.path().path();
            if (cloud(path)) {
                throw ApiException.of(Status.NOT_IMPLEMENTED_501, method + " " + path + " is not supported by this Engram "
                        + "server: it is part of Letta Cloud's API (templates, projects, pipelines, feeds, access tokens, "
                        + "environments), which no self-hosted Letta server has. Instead: create agents from agent files "
                        + "(POST /v1/agents/import) and keep them in your own repository.");
            }
            List<String> allowed = Stream.concat(routes.stream().map(r -> Map.entry(r.method(), r.path())),
                            table.stream().map(u -> Map.entry(u.method, u.path)))
                    .filter(known -> PathTemplate.of(known.getValue()).matches(path)).map(known -> known.getKey().text())
                    .distinct().sorted().toList();
            if (!allowed.isEmpty()) {
                res.header(HeaderNames.ALLOW, String.join(", ", allowed));
                Api.json(res, Status.METHOD_NOT_ALLOWED_405, ErrorAnswers.body(req, ApiException.of(
                        Status.METHOD_NOT_ALLOWED_405, "Method Not Allowed: " + path + " takes " + String.join(", ", allowed)
                                + ", not " + method + ".")));
                return;
            }
            throw ApiException.notFound("Not Found: " + method + " " + path + " is no operation of Letta's API (nor of "
                    + "Engram's own); the server README lists its endpoints.");
        });
    }
}
