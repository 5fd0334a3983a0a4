package dev.engram.server;

import dev.engram.agents.Agent;
import io.helidon.http.Method;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One endpoint of the server as data: its method, its path pattern, who may call it, and its handler. The route
 * classes list their routes; {@link EngramServer} registers exactly that table, and the tests walk it, so a route
 * cannot be added without the tests seeing it. Handlers get the request's {@link Caller} (authenticated once, by
 * {@link Authentication}) and, on an {@link Access#AGENT} route, the caller's agent that {@code {agent_id}} names
 * (a 404 for anyone else's): they never read the key themselves.
 *
 * @param method  the HTTP method
 * @param path    Helidon's path pattern ({@code /v1/agents/{agent_id}})
 * @param access  what the route needs before its handler runs
 * @param handler the Helidon handler, wrapped so that it gets the caller or the agent
 */
record Route(Method method, String path, Access access, Handler handler) {
    /** What a route needs before its handler runs. */
    enum Access {
        /** Anyone (the health check). */
        OPEN,
        /** An authenticated caller. */
        CALLER,
        /** An authenticated caller and the caller's agent named by the path's {@code {agent_id}}. */
        AGENT
    }

    /** A handler of an authenticated request. */
    @FunctionalInterface
    interface ForCaller {
        void handle(Caller caller, ServerRequest req, ServerResponse res);
    }

    /** A handler of a request about one of the caller's agents. */
    @FunctionalInterface
    interface ForAgent {
        void handle(Agent agent, ServerRequest req, ServerResponse res);
    }

    Route {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(access, "access");
        Objects.requireNonNull(handler, "handler");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("A route's path starts with '/': " + path);
        }
        if (access == Access.AGENT && !path.contains("{agent_id}")) {
            throw new IllegalArgumentException("An agent route's path names {agent_id}: " + path);
        }
    }

    /** A route anyone may call. */
    static Route open(Method method, String path, Handler handler) {
        return new Route(method, path, Access.OPEN, handler);
    }

    /** A route for an authenticated caller. */
    static Route caller(Method method, String path, ForCaller handler) {
        return new Route(method, path, Access.CALLER, (req, res) -> handler.handle(Authentication.caller(req), req, res));
    }

    /** A route about the caller's agent named by {@code {agent_id}} in the path; a 404 for anyone else's agent. */
    static Route agent(Api api, Method method, String path, ForAgent handler) {
        return new Route(method, path, Access.AGENT, (req, res) -> handler.handle(
                api.agent(Authentication.caller(req), req.path().pathParameters().get("agent_id")), req, res));
    }

    /** The same route at another path (same method, access and handler). */
    private Route at(String otherPath) {
        return new Route(method, otherPath, access, handler);
    }

    /** An empty route table, to which a route class adds its routes in the order Helidon should match them. */
    static Table table() {
        return new Table();
    }

    /**
     * A route class's routes in order. {@link #twin} is the one place a path gets its trailing-slash twin: Letta's
     * clients call {@code /v1/agents} and {@code /v1/agents/} alike, and both are in the table (so the tests that walk
     * it call both).
     */
    static final class Table {
        private final List<Route> routes = new ArrayList<>();

        private Table() {
        }

        /** Adds a route at its path only. */
        Table add(Route route) {
            routes.add(route);
            return this;
        }

        /** Adds a route at its path and at the same path with a trailing slash. */
        Table twin(Route route) {
            if (route.path().endsWith("/")) {
                throw new IllegalArgumentException("A twinned route's path has no trailing slash (the twin adds it): "
                        + route.path());
            }
            routes.add(route);
            routes.add(route.at(route.path() + "/"));
            return this;
        }

        /** The routes added, in order. */
        List<Route> list() {
            return List.copyOf(routes);
        }
    }

    /** Registers the routes in order (Helidon takes the first route that matches). */
    static void register(HttpRouting.Builder routing, List<Route> routes) {
        for (Route r : routes) {
            routing.route(r.method(), r.path(), r.handler());
        }
    }
}
