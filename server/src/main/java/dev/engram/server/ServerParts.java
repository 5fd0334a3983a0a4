package dev.engram.server;

import dev.engram.agents.AgentRuntime;
import dev.engram.agents.MemoryManager;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ModelSpec;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.tools.FolderUploads;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http.HttpRouting;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a server is made of and the order of its life: built from its {@link ServerSettings} (the runtime, whose
 * approval handler, permission broker and listeners the server's parts are, then the route table and the listeners),
 * {@linkplain #listen() started} (listening, then the work it resumes and the scheduled messages it delivers), and
 * {@linkplain #stop() stopped} (not ready first, then no new scheduled turns, the turns in progress cancelled, the
 * listeners stopped, the background work closed, and the runtime last).
 */
final class ServerParts {
    /** The public class's logger, which operators' logging configurations name. */
    private static final Logger LOG = LoggerFactory.getLogger("dev.engram.server.EngramServer");
    /** The name of the management listener. */
    private static final String MANAGEMENT = "management";

    final MemoryStore store;
    final MemorySearch search;
    final AgentRuntime runtime;
    /** The archival search's own path, which the warm-up runs. */
    final PassageRoutes passages;
    final ServerRoutes routes;
    private final WebServer web;
    private final Turns turns;
    private final OpsRoutes ops;
    private final MemoryManager memory;
    private final FolderUploads uploads;
    private final BatchRunner batches;
    private final McpServers mcp;
    private final boolean managed;
    private final Duration shutdownGrace;
    private final Duration scheduleInterval;
    private final CompletionStage<?> listenAfter;
    private final String address;
    private final String host;
    /** The store as the caller gave it (without the quotas), for the log line that says the server listens. */
    private final MemoryStore callersStore;
    private final String defaultModel;
    private final Object stopped = new Object();
    private volatile boolean closed;

    ServerParts(ServerSettings s) {
        // Helidon's first routing builder starts its service registry (about half a second): let it do that while
        // the runtime builds its tools' schemas, which take as long.
        CompletableFuture<HttpRouting.Builder> routingBuilder = CompletableFuture.supplyAsync(HttpRouting::builder);
        // Every write the server makes (routes, agents' tools, imports) counts against the quotas inside its transaction.
        MemoryStore store = s.store.withQuotas(s.quotas);
        this.store = store;
        Metrics metrics = new Metrics();
        MeteredSearch metered = new MeteredSearch(s.search, metrics);
        this.turns = new Turns(store, s.turnLock, s.maxWaitingPerUser, s.maxWaitingPerServer, metrics);
        this.search = s.search;
        this.ops = new OpsRoutes(store, metrics, s.readyAfter, s.warmingAfterReady);
        Providers providers = new Providers(store, ProviderSecrets.from(s.environment), s.environment);
        this.mcp = new McpServers(store, providers.secrets(), s.mcpPolicy);
        AgentRuntime.Builder rb = AgentRuntime.builder(store, metered);
        // A user's MCP servers' tools are that user's own: only their agents may be given them.
        CustomTools custom = new CustomTools(store, mcp);
        rb.userTools(custom);
        // Specs resolve in the operator's environment with the registered providers' keys (the operator may replace it).
        rb.modelResolver(spec -> ChatModel.of(ModelSpec.parse(spec, providers.environment())));
        s.runtime.accept(rb);
        // Only the operator chooses where model requests go: API users and agent files name models this allows.
        rb.modelPolicy(s.modelPolicy.allowSpec(s.defaultModel));
        rb.approvalHandler(turns);
        // Consent to writes of partner and human blocks is asked of the client, as an approval of the call that writes.
        rb.permissionBroker(turns);
        rb.listener(turns);
        rb.listener(metrics);
        RunLog runs = new RunLog(store, s.runRetention, s.maxRunEvents, turns);
        rb.listener(runs.steps());
        this.runtime = rb.build();
        mcp.bind(runtime);
        custom.bind(runtime);
        metrics.bind(turns, store, metered);
        this.shutdownGrace = s.shutdownGrace;
        runtime.scheduler().runTurnsWith((agent, session, message) -> runs.scheduled(agent, session,
                run -> turns.runScheduled(agent, session, message, run.id())));
        Api api = new Api(runtime, turns, new Api.Settings(s.defaultModel, s.pingInterval, s.keyCacheTtl, s.imageLimits,
                s.runRetention, s.maxRunEvents, s.environment), custom, runs);
        HelidonLog.install();
        this.managed = s.managed();
        this.memory = api.memory;
        this.passages = new PassageRoutes(api);
        this.uploads = api.uploads;
        this.batches = new BatchRunner(api);
        this.routes = new ServerRoutes(api, ops, providers, new ModelCatalog(s.defaultModel, runtime.modelPolicy(), providers),
                custom, mcp, batches, s.search, !managed);
        VerifiedKeys keys = new VerifiedKeys(s.store.keys(), s.keyCacheTtl);
        WebServerConfig.Builder web = WebServer.builder().host(s.host).port(s.port).maxPayloadSize(s.maxBodyBytes)
                .shutdownGracePeriod(s.shutdownGrace).shutdownHook(false)
                .routing(routes.routing(routingBuilder.join(), metrics, keys));
        if (managed) {
            HttpRouting.Builder management = routes.managementRouting(metrics, keys);
            web.putSocket(MANAGEMENT, m -> m.host(s.host).port(s.managementPort).routing(management));
        }
        this.web = web.build();
        this.scheduleInterval = s.scheduleInterval;
        this.listenAfter = s.listenAfter;
        this.address = s.host + ", port " + s.port + (managed ? " (management port " + s.managementPort + ")" : "");
        this.host = s.host;
        this.callersStore = s.store;
        this.defaultModel = s.defaultModel;
    }

    /**
     * Waits for the settings' {@code listenAfter}, starts listening, and starts delivering scheduled messages; on a
     * failure, stops whatever of it had started and throws.
     */
    void listen() {
        try {
            awaitListenAfter();
            web.start();
            if (!web.isRunning()) {
                // Helidon logs why (the address in use, say), stops, and returns without throwing
                throw new IllegalStateException("Cannot listen on " + address
                        + ": the port is in use or the address cannot be bound; nothing was started");
            }
            // memory jobs whose process stopped (this server's last run, another server's, a CLI's); a job another
            // live process holds is left to it, and one whose owner stops while this server runs is taken up
            // within a lease
            memory.resumeAbandoned();
            memory.resumeAbandonedEvery(MemoryManager.LEASE);
            // uploads to folders whose server stopped, under the same lease: one another live server runs is left to it
            uploads.resumeAbandoned();
            uploads.resumeAbandonedEvery(MemoryManager.LEASE);
            batches.start(); // message batches whose server stopped are marked failed, saying what they did
            runtime.scheduler().start(scheduleInterval);
        } catch (RuntimeException | Error e) {
            // Nothing half-started: what was built (and, if it got so far, the listener) is stopped again.
            try {
                stop();
            } catch (RuntimeException | Error suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        ops.started();
        LOG.info("Engram server listening on http://{}:{} (store {}, default model {})", host, port(), callersStore,
                defaultModel);
    }

    private void awaitListenAfter() {
        try {
            listenAfter.toCompletableFuture().join();
        } catch (CompletionException | CancellationException e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("the server could not start: " + cause.getMessage(), cause);
        }
    }

    int port() {
        return web.port();
    }

    OptionalInt managementPort() {
        return managed ? OptionalInt.of(web.port(MANAGEMENT)) : OptionalInt.empty();
    }

    boolean closed() {
        return closed;
    }

    /** Waits until the server is stopped. */
    void awaitStopped() throws InterruptedException {
        synchronized (stopped) {
            while (!closed) {
                stopped.wait();
            }
        }
    }

    /** Stops the server in its shutdown order; idempotent. */
    void stop() {
        synchronized (stopped) {
            if (closed) {
                return;
            }
            closed = true;
            stopped.notifyAll();
        }
        // Not ready from now on, while the turns in progress stop: a load balancer sends no more traffic here.
        ops.stopping();
        // No new scheduled turns; one in progress is cancelled with the others (or, not yet started, given back).
        runtime.scheduler().stop();
        turns.stop(shutdownGrace);
        web.stop();
        memory.close();
        mcp.close();
        uploads.close();
        batches.close();
        runtime.close();
        LOG.info("Engram server stopped");
    }
}
