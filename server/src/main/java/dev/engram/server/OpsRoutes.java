package dev.engram.server;

import dev.engram.memory.MemoryStore;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import tools.jackson.databind.node.ObjectNode;

/**
 * What an operator's tooling calls: probes that mean what Kubernetes means, and the metrics.
 *
 * <ul>
 *   <li>{@code GET /livez}: the process is up and answers requests; 200 whenever it answers at all (it never asks the
 *       store, so that a database outage does not make Kubernetes restart every server).</li>
 *   <li>{@code GET /readyz}: the server should be sent traffic: 200 {@code {"status": "ready", "warm": true}} once it has started and
 *       warmed up (the work given to {@code EngramServer.Builder.readyAfter}, such as opening the search index and the
 *       embedding model, so that its first search costs what later ones cost), and while its memory store answers a
 *       read within {@link #PROBE_TIMEOUT}; 503 with {@code "starting"},
 *       {@code "stopping"} (from the moment {@code close()} begins) or {@code "unavailable"} and the reason otherwise.
 *       {@code "warm"} is false while the work given to {@code EngramServer.Builder.warmUpAfterReady} runs: ready
 *       already (a search then may wait for the embedding model), its first requests slower than later ones.</li>
 *   <li>{@code GET /metrics}: the {@link Metrics} in Prometheus' text format, for an admin key only (401 without a key,
 *       403 for a user's key).</li>
 * </ul>
 *
 * The probes need no key (a kubelet has none) and tell nothing about users; Letta's {@code GET /v1/health/} stays as
 * it was.
 */
final class OpsRoutes {
    /** How long readiness waits for the store to answer before it says the store is unavailable. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
    /** Prometheus' text exposition format. */
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    /** Where the server is in its life. */
    enum State {
        STARTING, READY, STOPPING
    }

    private final MemoryStore store;
    private final Metrics metrics;
    private final CompletableFuture<?> warmUp;
    private final CompletableFuture<?> warming;
    private volatile State state = State.STARTING;

    /** Probes over {@code store}: not ready until {@code warmUp} completes, and warm once ready. */
    OpsRoutes(MemoryStore store, Metrics metrics, CompletionStage<?> warmUp) {
        this(store, metrics, warmUp, CompletableFuture.completedFuture(null));
    }

    /**
     * Probes over {@code store}: not ready until {@code warmUp} completes; {@code warming} is work done after ready
     * (readiness says {@code "warm": false} until it completes, normally or not, and stays 200 meanwhile).
     */
    OpsRoutes(MemoryStore store, Metrics metrics, CompletionStage<?> warmUp, CompletionStage<?> warming) {
        this.store = store;
        this.metrics = metrics;
        this.warmUp = warmUp.toCompletableFuture();
        this.warming = warming.toCompletableFuture();
    }

    /** The probes. */
    List<Route> probes() {
        return List.of(Route.open(Method.GET, "/livez", this::live), Route.open(Method.GET, "/readyz", this::ready));
    }

    /** The metrics route (on the server's port, or on the management port). */
    Route metrics() {
        return Route.caller(Method.GET, "/metrics", this::scrape);
    }

    /** The server started: ready while the store answers. */
    void started() {
        state = State.READY;
    }

    /** The server is stopping: not ready from now on. */
    void stopping() {
        state = State.STOPPING;
    }

    private void live(ServerRequest req, ServerResponse res) {
        Api.json(res, Body.JSON.createObjectNode().put("status", "alive"));
    }

    private void ready(ServerRequest req, ServerResponse res) {
        Readiness now = readiness();
        Api.json(res, now.status(), now.body());
    }

    /** What readiness answers now: its status (200 or 503) and its body ({@code status}, and {@code reasons} when not ready). */
    record Readiness(Status status, ObjectNode body) {
    }

    /** Readiness now, as {@code /readyz} and Letta's {@code GET /v1/ready/} answer it. */
    Readiness readiness() {
        State now = state;
        ObjectNode body = Body.JSON.createObjectNode();
        if (now != State.READY) {
            body.put("status", now.name().toLowerCase(java.util.Locale.ROOT));
            body.putArray("reasons").add(now == State.STARTING ? "the server is starting" : "the server is stopping");
            return new Readiness(Status.SERVICE_UNAVAILABLE_503, body);
        }
        if (!warmUp.isDone()) {
            body.put("status", "starting").putArray("reasons").add("the server is warming up (opening the search index "
                    + "and the embedding model)");
            return new Readiness(Status.SERVICE_UNAVAILABLE_503, body);
        }
        String problem = storeProblem();
        if (problem.isEmpty()) {
            return new Readiness(Status.OK_200, body.put("status", "ready").put("warm", warming.isDone()));
        }
        body.put("status", "unavailable").putArray("reasons").add(problem);
        return new Readiness(Status.SERVICE_UNAVAILABLE_503, body);
    }

    /** Why the store cannot serve requests now (empty when it answered a read in time); details go to the log only. */
    private String storeProblem() {
        CompletableFuture<Long> read = CompletableFuture.supplyAsync(() -> store.changes().lastSeq(),
                r -> Thread.ofVirtual().name("engram-readiness").start(r));
        try {
            read.get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return "";
        } catch (TimeoutException e) {
            read.cancel(true);
            Incidents.warn("readiness-timeout", "Not ready: the memory store did not answer a read within " + PROBE_TIMEOUT);
            return "the memory store did not answer within " + PROBE_TIMEOUT.toSeconds() + " s";
        } catch (ExecutionException e) {
            Incidents.warn("readiness-" + e.getCause().getClass().getName(), "Not ready: the memory store failed a read: "
                    + e.getCause());
            return "the memory store cannot be read";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "the server is stopping";
        }
    }

    private void scrape(Caller caller, ServerRequest req, ServerResponse res) {
        if (!caller.admin()) {
            throw ApiException.forbidden("Reading /metrics needs an admin key (create one with 'engram keys create --admin').");
        }
        res.header(HeaderNames.CONTENT_TYPE, PROMETHEUS_TEXT);
        res.send(metrics.scrape());
    }
}
