package dev.engram.server;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Filter;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerRequest;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The one place a request's key is read: a routing filter that authenticates every request under {@code /v1},
 * {@code /metrics} and the canvas pages (those without a signed link, which {@link CanvasRoutes} checks) (except the paths of {@link Route.Access#OPEN} routes: the health check and the probes) from its
 * {@code Authorization: Bearer KEY}, and registers its {@link Caller} in the request's context; no key or a wrong
 * one is a 401 before any handler runs, whatever route (or none) the path would reach. Handlers get the caller
 * from the context through {@link Route}; a route outside the filter's reach that needs a caller answers 401
 * (it fails closed).
 */
final class Authentication implements Filter {
    /** The paths outside {@code /v1} that need a key too: the metrics. */
    static final Set<String> OUTSIDE_V1 = Set.of("/metrics");

    private final VerifiedKeys keys;
    private final Set<String> openPaths;

    /** A filter over the store's keys that leaves the paths of the table's open routes alone. */
    Authentication(VerifiedKeys keys, List<Route> routes) {
        this.keys = keys;
        this.openPaths = routes.stream().filter(r -> r.access() == Route.Access.OPEN).map(Route::path)
                .collect(Collectors.toUnmodifiableSet());
        openPaths.stream().filter(p -> p.contains("{") || p.contains("*")).findFirst().ifPresent(p -> {
            throw new IllegalArgumentException("An open route's path is exact (no parameters or wildcards): " + p);
        });
    }

    @Override
    public void filter(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        String path = req.path().path();
        boolean page = path.startsWith(CanvasRoutes.PAGES) && !CanvasRoutes.signed(req);
        if ((path.equals("/v1") || path.startsWith("/v1/") || OUTSIDE_V1.contains(path) || page) && !openPaths.contains(path)) {
            req.context().register(authenticate(req));
        }
        chain.proceed();
    }

    /** The caller of a request, from its {@code Authorization: Bearer KEY}; a 401 without a valid key. */
    private Caller authenticate(ServerRequest req) {
        String header = req.headers().first(HeaderNames.AUTHORIZATION).orElse("").trim();
        if (header.isEmpty()) {
            throw ApiException.unauthorized("Missing API key: send 'Authorization: Bearer KEY' (create one with "
                    + "'engram keys create --user USER').");
        }
        if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw ApiException.unauthorized("The Authorization header must be 'Bearer KEY'.");
        }
        return keys.verify(header.substring(7).trim()).orElseThrow(() -> ApiException.unauthorized("Invalid API key."));
    }

    /** The caller the filter authenticated; a 401 when it did not (a route the filter does not cover). */
    static Caller caller(ServerRequest req) {
        return req.context().get(Caller.class).orElseThrow(() -> ApiException.unauthorized(
                "This endpoint needs an API key: send 'Authorization: Bearer KEY'."));
    }
}
