package dev.engram.server;

import dev.engram.agents.MemoryManager;
import dev.engram.agents.AgentRuntime;
import dev.engram.framework.ModelPolicy;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ModelSpec;
import dev.engram.tools.FolderUploads;
import dev.engram.memory.Archive;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.SearchDomain;
import dev.engram.memory.SearchRequest;
import dev.engram.memory.UserQuotas;
import dev.engram.memory.SearchHealth;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A server that speaks Letta's V1 REST API over an Engram {@link AgentRuntime}, on Helidon SE (virtual
 * threads): agents, messages (with SSE streaming), core memory and blocks, archival memory, tools and
 * approvals, identities, scheduled messages (which the server delivers). Requests carry {@code Authorization: Bearer KEY}, a key of the store's
 * {@link dev.engram.memory.KeyStore}: a user's key sees only that user's agents and memory (anything else is
 * 404), an admin key sees every user's. Errors are Letta's: a status and {@code {"detail": ...}}; no stack
 * trace reaches a client. Operations of Letta's API that Engram does not implement answer 501 saying why and what to
 * use instead ({@link Unsupported}).
 *
 * <pre>{@code
 * try (EngramServer server = EngramServer.builder(store, search)
 *         .runtime(rt -> rt.model("openai:gpt-4o-mini", ChatModel.of("openai:gpt-4o-mini")))
 *         .defaultModel("openai:gpt-4o-mini").port(8283).start()) {
 *     server.awaitShutdown();
 * }
 * }</pre>
 *
 * For operators: {@code GET /metrics} (Prometheus' text format, admin keys only; on {@link Builder#managementPort} when
 * set), {@code GET /livez} and {@code GET /readyz} (as Kubernetes means them), and a request id on every request
 * ({@code X-Request-Id}, {@code request_id} in error bodies and in SLF4J's MDC while the request is handled).
 *
 * The server builds and owns its runtime (it is the runtime's approval handler and permission broker, which is how
 * Letta's approval messages reach a waiting tool call, or a write to a {@code partner} or {@code human} block waiting
 * for consent); the store and the search stay the caller's to close.
 */
public final class EngramServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EngramServer.class);

    /** Letta's port. */
    public static final int DEFAULT_PORT = 8283;
    /** Largest request body accepted (an agent file upload included): 32 MiB. */
    public static final long DEFAULT_MAX_BODY_BYTES = 32L << 20;
    /** The largest image of a user message, decoded: 5 MiB. */
    public static final int DEFAULT_MAX_IMAGE_BYTES = ImageParts.Limits.DEFAULT_MAX_BYTES;
    /** The most images one user message may carry. */
    public static final int DEFAULT_MAX_IMAGES_PER_MESSAGE = ImageParts.Limits.DEFAULT_MAX_PER_MESSAGE;
    /** Turns of one user that may wait for an approval at once. */
    public static final int DEFAULT_MAX_WAITING_PER_USER = 100;
    /** Turns of all users that may wait for an approval at once. */
    public static final int DEFAULT_MAX_WAITING_PER_SERVER = 1_000;
    /** How long a run and its events are kept after it ends, by default (see {@link Builder#runRetention}). */
    public static final Duration DEFAULT_RUN_RETENTION = Duration.ofHours(1);
    /** The most events kept per run, by default (the newest; as Letta's stream length). */
    public static final int DEFAULT_MAX_RUN_EVENTS = 10_000;
    /** How often the server looks for due scheduled messages. */
    public static final Duration DEFAULT_SCHEDULE_INTERVAL = Duration.ofSeconds(1);
    /** The name of the management listener. */
    private static final String MANAGEMENT = "management";

    private final WebServer web;
    private final AgentRuntime runtime;
    private final MemorySearch search;
    private final MemoryStore store;
    private final Turns turns;
    private final List<Route> routes;
    private final Duration shutdownGrace;
    private final MemoryManager memory;
    private final FolderUploads uploads;
    private final OpsRoutes ops;
    private final PassageRoutes passages;
    private final BatchRunner batches;
    private final boolean managed;
    private final McpServers mcp;
    private final Object stopped = new Object();
    private volatile boolean closed;

    private EngramServer(Builder b) {
        // Helidon's first routing builder starts its service registry (about half a second): let it do that while
        // the runtime builds its tools' schemas, which take as long.
        java.util.concurrent.CompletableFuture<HttpRouting.Builder> routingBuilder =
                java.util.concurrent.CompletableFuture.supplyAsync(HttpRouting::builder);
        // Every write the server makes (routes, agents' tools, imports) counts against the quotas inside its transaction.
        MemoryStore store = b.store.withQuotas(b.quotas);
        this.store = store;
        Metrics metrics = new Metrics();
        MeteredSearch metered = new MeteredSearch(b.search, metrics);
        this.turns = new Turns(store, b.turnLock, b.maxWaitingPerUser, b.maxWaitingPerServer, metrics);
        this.search = b.search;
        this.ops = new OpsRoutes(store, metrics, b.readyAfter, b.warmingAfterReady);
        Providers providers = new Providers(store, ProviderSecrets.from(b.environment), b.environment);
        this.mcp = new McpServers(store, providers.secrets(), b.mcpPolicy);
        AgentRuntime.Builder rb = AgentRuntime.builder(store, metered);
        // A user's MCP servers' tools are that user's own: only their agents may be given them.
        CustomTools custom = new CustomTools(store, mcp);
        rb.userTools(custom);
        // Specs resolve in the operator's environment with the registered providers' keys (the operator may replace it).
        rb.modelResolver(spec -> ChatModel.of(ModelSpec.parse(spec, providers.environment())));
        b.runtime.accept(rb);
        // Only the operator chooses where model requests go: API users and agent files name models this allows.
        rb.modelPolicy(b.modelPolicy.allowSpec(b.defaultModel));
        rb.approvalHandler(turns);
        // Consent to writes of partner and human blocks is asked of the client, as an approval of the call that writes.
        rb.permissionBroker(turns);
        rb.listener(turns);
        rb.listener(metrics);
        RunLog runs = new RunLog(store, b.runRetention, b.maxRunEvents, turns);
        rb.listener(runs.steps());
        this.runtime = rb.build();
        mcp.bind(runtime);
        custom.bind(runtime);
        metrics.bind(turns, store, metered);
        this.shutdownGrace = b.shutdownGrace;
        runtime.scheduler().runTurnsWith((agent, session, message) -> runs.scheduled(agent, session,
                run -> turns.runScheduled(agent, session, message, run.id())));
        Api api = new Api(runtime, turns, new Api.Settings(b.defaultModel, b.pingInterval, b.keyCacheTtl, b.imageLimits,
                b.runRetention, b.maxRunEvents, b.environment), custom, runs);
        HelidonLog.install();
        this.managed = b.managementPort >= 0;
        this.memory = api.memory;
        this.passages = new PassageRoutes(api);
        this.uploads = api.uploads;
        this.batches = new BatchRunner(api);
        this.routes = routes(api, providers, new ModelCatalog(b.defaultModel, runtime.modelPolicy(), providers), !managed, custom);
        VerifiedKeys keys = new VerifiedKeys(b.store.keys(), b.keyCacheTtl);
        HttpRouting.Builder routing = routingBuilder.join();
        // The request id first, so that authentication's refusals carry it too.
        routing.addFilter(new RequestIds(metrics));
        routing.addFilter(new Authentication(keys, routes));
        // The unsupported operations' explained 501s first, so that a route with a parameter does not take them.
        Unsupported.registerBefore(routing, UnsupportedOperations.ALL, routes);
        Route.register(routing, routes);
        new ConsoleAssets().register(routing);
        Unsupported.registerCatchAll(routing, UnsupportedOperations.ALL, routes);
        ErrorAnswers.register(routing);
        WebServerConfig.Builder web = WebServer.builder().host(b.host).port(b.port).maxPayloadSize(b.maxBodyBytes)
                .shutdownGracePeriod(b.shutdownGrace).shutdownHook(false).routing(routing);
        if (managed) {
            List<Route> management = new ArrayList<>(ops.probes());
            management.add(ops.metrics());
            HttpRouting.Builder mr = HttpRouting.builder().addFilter(new RequestIds(metrics))
                    .addFilter(new Authentication(keys, management));
            Route.register(mr, management);
            ErrorAnswers.register(mr);
            web.putSocket(MANAGEMENT, s -> s.host(b.host).port(b.managementPort).routing(mr));
        }
        this.web = web.build();
    }

    /**
     * The server's route table: every endpoint, in the order Helidon matches them. Its second half is built on another
     * thread while this one builds the first (each route is a lambda the JVM spins at its first use: hundreds at a
     * start, which a second core shares); the order is the same either way.
     */
    private List<Route> routes(Api api, Providers providers, ModelCatalog models, boolean metricsHere, CustomTools custom) {
        CompletableFuture<List<Route>> later = CompletableFuture.supplyAsync(() -> laterRoutes(api, providers, models, custom),
                task -> Thread.ofPlatform().daemon().name("engram-routes").start(task));
        List<Route> routes = new ArrayList<>(Route.table().twin(Route.open(Method.GET, "/v1/health", this::health)).list());
        routes.addAll(ops.probes());
        if (metricsHere) {
            routes.add(ops.metrics());
        }
        // Before the classes whose {id} patterns would take 'count', 'search' or 'batches'.
        routes.addAll(new RelationRoutes(api).routes());
        routes.addAll(new AgentSearchRoutes(api).routes());
        routes.addAll(new MessageSearchRoutes(api).routes());
        routes.addAll(new PassageSearchRoutes(api).routes());
        routes.addAll(new BatchRoutes(api, batches).routes());
        routes.addAll(new StatusRoutes(ops).routes());
        routes.addAll(new MemoryFileRoutes(api).routes());
        routes.addAll(new AgentRoutes(api).routes());
        routes.addAll(new AgentOpsRoutes(api).routes());
        routes.addAll(new PreviewRoutes(api).routes());
        routes.addAll(new GenerateRoutes(api).routes());
        routes.addAll(new ChatCompletionsRoutes(api).routes());
        routes.addAll(new MessageEditRoutes(api).routes());
        routes.addAll(new MessageRoutes(api).routes());
        routes.addAll(new CoreMemoryRoutes(api).routes());
        routes.addAll(new BlockRoutes(api).routes());
        routes.addAll(new PassageRoutes(api).routes());
        routes.addAll(new McpServerRoutes(api, mcp).routes());
        routes.addAll(new ArchiveRoutes(api).routes());
        routes.addAll(joined(later));
        return List.copyOf(routes);
    }

    /** The route table's second half, in order (after {@link ArchiveRoutes}). */
    private static List<Route> laterRoutes(Api api, Providers providers, ModelCatalog models, CustomTools custom) {
        List<Route> routes = new ArrayList<>();
        // Before ToolRoutes: /v1/tools/count is not a tool id.
        routes.addAll(new CustomToolRoutes(api, custom).routes());
        routes.addAll(new GroupRoutes(api).routes());
        routes.addAll(new ToolRoutes(api, custom).routes());
        routes.addAll(new IdentityRoutes(api).routes());
        routes.addAll(new ConversationRoutes(api).routes());
        routes.addAll(new RunRoutes(api).routes());
        routes.addAll(new StepRoutes(api).routes());
        routes.addAll(new ModelRoutes(models).routes());
        routes.addAll(new ProviderRoutes(api, providers).routes());
        routes.addAll(new ScheduleRoutes(api).routes());
        routes.addAll(new WorkRoutes(api).routes());
        routes.addAll(new StartupRoutes(api).routes());
        routes.addAll(new ContextRoutes(api).routes());
        routes.addAll(new NoteRoutes(api).routes());
        routes.addAll(new CanvasRoutes(api).routes());
        routes.addAll(new MemoryAddRoutes(api).routes());
        routes.addAll(new JobRoutes(api).routes());
        routes.addAll(new FolderRoutes(api).routes());
        routes.addAll(new AgentFolderRoutes(api).routes());
        return routes;
    }

    /** What {@code part} returned, or what it threw, unwrapped. */
    private static <T> T joined(CompletableFuture<T> part) {
        try {
            return part.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    /** The route table (for tests that walk every endpoint). */
    List<Route> routes() {
        return routes;
    }

    /**
     * {@code status} {@code ok}, or {@code degraded} with the {@code reasons} (search on BM25 alone while the embedding
     * model is unavailable, an in-memory index while the index directory cannot be used): the server still answers, in
     * a lesser way that each reason names. Always 200, so that a probe does not take a degraded server out of service.
     */
    private void health(ServerRequest req, ServerResponse res) {
        String version = EngramServer.class.getPackage().getImplementationVersion();
        SearchHealth searchHealth = search.health();
        ObjectNode body = Body.JSON.createObjectNode().put("version", version == null ? "dev" : version)
                .put("status", searchHealth.degraded() ? "degraded" : "ok").put("degraded", searchHealth.degraded());
        ArrayNode reasons = body.putArray("reasons");
        searchHealth.reasons().forEach(reasons::add);
        Api.json(res, body);
    }

    /**
     * Does, on the calling thread, the part of every server's start that no setting changes, so that a server built
     * afterwards (or meanwhile, on another thread) finds it done: Helidon's service registry and its configuration, and
     * the classes of the JSON mapper and of the metrics. Optional, and safe to call more than once or never: a command
     * line that is about to start a server calls it on a thread of its own while it parses its arguments, on a machine
     * with a second core. It builds no server, binds no port and starts no thread.
     */
    public static void prepare() {
        HttpRouting.Builder routing = HttpRouting.builder();
        WebServer.builder().host("127.0.0.1").port(0).shutdownHook(false).routing(routing).buildPrototype();
        Body.JSON.createObjectNode();
        new Metrics();
    }

    /** A builder over the caller's store and search. */
    public static Builder builder(MemoryStore store, MemorySearch search) {
        return new Builder(store, search);
    }

    /** The port the server listens on (the chosen one when it was built with port 0). */
    public int port() {
        return web.port();
    }

    /**
     * The management port ({@code /metrics} and the probes) when the server was built with {@link Builder#managementPort};
     * empty when the metrics are on {@link #port()}.
     */
    public OptionalInt managementPort() {
        return managed ? OptionalInt.of(web.port(MANAGEMENT)) : OptionalInt.empty();
    }

    /** The runtime the server runs its agents on. */
    public AgentRuntime runtime() {
        return runtime;
    }

    /** Rounds of the warm-up's queries: enough for the JIT to compile the search path's hot code. */
    static final int WARM_UP_ROUNDS = 5;
    /** A scope no one has: the warm-up's searches find nothing and read no one's memory. */
    static final Scope WARM_UP_SCOPE = Scope.of("engram-warm-up", "engram-warm-up");
    /** Queries of a few lengths (in tokens: about 5, 15 and 40): the embedding model plans each input shape once. */
    static final List<String> WARM_UP_QUERIES = List.of("warm up the search",
            "what did Maya say about the field report and the octopus migration study",
            "a longer question, as an agent asks when it searches its archival memory for what the user said about a "
                    + "project, its deadlines, the people involved and the places they travelled to last spring");

    /**
     * Runs archival searches through the server's own search path ({@code /v1/agents/{id}/archival-memory/search}'s:
     * the index caught up, the query embedded, the hybrid search, the results written as JSON), {@value #WARM_UP_ROUNDS}
     * rounds of a few queries in a scope no user has, so that the first search a client makes costs what later ones
     * cost: opening the index and the embedding model, the model's first runs and the JIT's compiling happen here (and
     * the tools' schemas, which the built-in tools generate at first use, are generated first). Then
     * it does what the first request on a real agent adds ({@link AgentWarmUp}): it loads the agent whose memory changed
     * last as a request loads it (its tools), compiles its prompt (counting its tokens) and searches its archival memory
     * for words of its newest entry, so that Lucene's scorers run on hits. It reads, and stores nothing; its searches are
     * not counted in the metrics. Meant for a background thread once the server listens (with
     * {@link Builder#warmUpAfterReady} or {@link Builder#readyAfter}); returns when done, or early once the server is
     * closed. A failure of the search (the embedding model cannot load, say) is thrown, and the first real search meets
     * it too; one of the agent's part (a model that cannot be resolved, an agent deleted meanwhile) ends that part only.
     */
    public void warmUp() {
        try {
            runtime.toolRegistry(); // every tool's schema and validator, which the built-ins generate at first use
        } catch (RuntimeException e) {
            // a tool whose schema cannot be generated: the requests that use it say so
        }
        Optional<AgentWarmUp.Target> agent = closed ? Optional.empty()
                : AgentWarmUp.target(store, WARM_UP_QUERIES.getFirst());
        for (int round = 0; round < WARM_UP_ROUNDS; round++) {
            for (String query : WARM_UP_QUERIES) {
                if (closed) {
                    return;
                }
                SearchRequest request = SearchRequest.builder(WARM_UP_SCOPE, query).domains(SearchDomain.ARCHIVAL).build();
                Body.JSON.writeValueAsBytes(passages.results(search, WARM_UP_SCOPE, request, Map.of(), Set.of(), false));
            }
        }
        if (agent.isEmpty() || closed) {
            return;
        }
        Scope scope = agent.get().scope();
        try {
            runtime.current(scope.userId(), scope.agentId()).compilePrompt();
            Map<String, Archive> archives = new LinkedHashMap<>();
            store.archives().attached(scope).forEach(a -> archives.put(a.id(), a));
            for (int round = 0; round < WARM_UP_ROUNDS && !closed; round++) {
                SearchRequest request = SearchRequest.builder(scope, agent.get().query()).domains(SearchDomain.ARCHIVAL)
                        .archives(archives.keySet()).build();
                Body.JSON.writeValueAsBytes(passages.results(search, scope, request, archives, Set.of(), false));
            }
        } catch (RuntimeException e) {
            // the agent was deleted meanwhile, its model cannot be resolved, the server closed: its first request says so
        }
    }

    /** Waits until the server is closed (by {@link #close()}, e.g. from a shutdown hook). */
    public void awaitShutdown() throws InterruptedException {
        synchronized (stopped) {
            while (!closed) {
                stopped.wait();
            }
        }
    }

    /**
     * Stops the server: no new requests; turns in progress are cancelled (what they stored stays consistent,
     * as {@code Agent.cancel} promises) and given the shutdown grace to stop; then the runtime closes.
     * Idempotent.
     */
    @Override
    public void close() {
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

    /** Builds a server; {@link #start()} starts it. */
    public static final class Builder {
        private final MemoryStore store;
        private final MemorySearch search;
        private Consumer<AgentRuntime.Builder> runtime = b -> { };
        private String host = "127.0.0.1";
        private int port = DEFAULT_PORT;
        private String defaultModel = "openai:gpt-4o-mini";
        private ModelPolicy modelPolicy = ModelPolicy.providersOnly();
        private long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private Duration pingInterval = Duration.ofSeconds(5);
        private Duration runRetention = DEFAULT_RUN_RETENTION;
        private int maxRunEvents = DEFAULT_MAX_RUN_EVENTS;
        private Duration shutdownGrace = Duration.ofSeconds(10);
        private Duration keyCacheTtl = Duration.ofSeconds(1);
        private TurnLock turnLock = TurnLock.local();
        private UserQuotas quotas = UserQuotas.defaults();
        private int maxWaitingPerUser = DEFAULT_MAX_WAITING_PER_USER;
        private int maxWaitingPerServer = DEFAULT_MAX_WAITING_PER_SERVER;
        private Map<String, String> environment = System.getenv();
        private Duration scheduleInterval = DEFAULT_SCHEDULE_INTERVAL;
        private int managementPort = -1;
        private ImageParts.Limits imageLimits = ImageParts.Limits.defaults();
        private CompletionStage<?> readyAfter = CompletableFuture.completedFuture(null);
        private CompletionStage<?> warmingAfterReady = CompletableFuture.completedFuture(null);
        private CompletionStage<?> listenAfter = CompletableFuture.completedFuture(null);
        private McpServerPolicy mcpPolicy = McpServerPolicy.defaults();

        private Builder(MemoryStore store, MemorySearch search) {
            this.store = Objects.requireNonNull(store, "store must not be null");
            this.search = Objects.requireNonNull(search, "search must not be null");
        }

        /**
         * Configures the agent runtime (models, tools, workspace, limits); the server sets its approval handler and its
         * permission broker (consent to block writes is asked of the API client).
         */
        public Builder runtime(Consumer<AgentRuntime.Builder> configure) {
            this.runtime = Objects.requireNonNull(configure, "runtime configuration must not be null");
            return this;
        }

        /**
         * How large one image of a user message may be, decoded (a larger one is a 413 naming the limit), and how many
         * one message may carry (more is a 422). Default {@value #DEFAULT_MAX_IMAGE_BYTES} bytes (5 MiB) and
         * {@value #DEFAULT_MAX_IMAGES_PER_MESSAGE} images; 0 images refuses every image.
         *
         * @throws IllegalArgumentException if {@code maxBytesPerImage} is below 1 or above the store's
         *                                  {@code MemoryLimits.maxImageBytes}, or {@code maxImagesPerMessage} is negative
         */
        public Builder imageLimits(int maxBytesPerImage, int maxImagesPerMessage) {
            int ceiling = store.limits().maxImageBytes();
            if (maxBytesPerImage > ceiling) {
                throw new IllegalArgumentException("the largest image may be at most the store's MemoryLimits.maxImageBytes ("
                        + ceiling + " bytes), got " + maxBytesPerImage);
            }
            this.imageLimits = new ImageParts.Limits(maxBytesPerImage, maxImagesPerMessage);
            return this;
        }

        /** The address to listen on; {@code 127.0.0.1} by default, {@code 0.0.0.0} for every interface. */
        public Builder host(String host) {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("host must not be blank");
            }
            this.host = host;
            return this;
        }

        /** The port; 0 chooses a free one ({@link #port()} tells which). Default {@value #DEFAULT_PORT}. */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
            }
            this.port = port;
            return this;
        }

        /** The model spec of agents created without {@code model} or {@code llm_config}. */
        public Builder defaultModel(String spec) {
            if (spec == null || spec.isBlank()) {
                throw new IllegalArgumentException("default model must not be blank");
            }
            this.defaultModel = spec;
            return this;
        }

        /**
         * The models API users and imported agent files may name (the runtime's {@link AgentRuntime#modelPolicy()}):
         * provider models, plus the endpoints and scripts this allows; the {@link #defaultModel} and the models
         * registered with the runtime are always allowed. Default {@link ModelPolicy#providersOnly()}. Any other model
         * is refused with a 422 and nothing is stored. It replaces a policy set through {@link #runtime}.
         */
        public Builder modelPolicy(ModelPolicy policy) {
            this.modelPolicy = Objects.requireNonNull(policy, "model policy must not be null");
            return this;
        }

        /** The largest request body accepted; larger ones get 413. Default 32 MiB. */
        public Builder maxBodyBytes(long bytes) {
            if (bytes < 1_024) {
                throw new IllegalArgumentException("max body size must be at least 1024 bytes, got " + bytes);
            }
            this.maxBodyBytes = bytes;
            return this;
        }

        /** How often a stream asked for pings ({@code include_pings}) gets one. Default 5 s. */
        public Builder pingInterval(Duration interval) {
            if (interval == null || interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("ping interval must be positive, got " + interval);
            }
            this.pingInterval = interval;
            return this;
        }

        /**
         * How long a run and the events of a background stream are kept after the run ends, for a client to resume the
         * stream ({@code POST /v1/runs/{id}/stream}) or read the run. Default {@link #DEFAULT_RUN_RETENTION}.
         */
        public Builder runRetention(Duration retention) {
            if (retention == null || retention.isNegative() || retention.isZero()) {
                throw new IllegalArgumentException("run retention must be positive, got " + retention);
            }
            this.runRetention = retention;
            return this;
        }

        /** The most events kept per run (its newest): a resume from before them is refused. Default {@link #DEFAULT_MAX_RUN_EVENTS}. */
        public Builder maxRunEvents(int events) {
            if (events < 1) {
                throw new IllegalArgumentException("a run keeps at least 1 event, got " + events);
            }
            this.maxRunEvents = events;
            return this;
        }

        /** How long {@link #close()} waits for cancelled turns and open requests. Default 10 s. */
        public Builder shutdownGrace(Duration grace) {
            if (grace == null || grace.isNegative()) {
                throw new IllegalArgumentException("shutdown grace must not be negative, got " + grace);
            }
            this.shutdownGrace = grace;
            return this;
        }

        /**
         * How long a key that verified is taken as valid without asking the store again. Default 1 s: a client's
         * requests then cost one key lookup per second, and a key revoked with {@code engram keys revoke} stops
         * working on every server within that time. {@link Duration#ZERO} checks the store on every request.
         */
        public Builder keyCacheTtl(Duration ttl) {
            if (ttl == null || ttl.isNegative()) {
                throw new IllegalArgumentException("key cache time must not be negative, got " + ttl);
            }
            this.keyCacheTtl = ttl;
            return this;
        }

        /** One turn at a time per agent: {@link TurnLock#local()} by default; a database lock for several instances. */
        public Builder turnLock(TurnLock lock) {
            this.turnLock = Objects.requireNonNull(lock, "turn lock must not be null");
            return this;
        }

        /** How much each user may keep (agents, blocks, archival entries, notes, bytes), enforced by the store inside each write; default {@link UserQuotas#defaults()}. */
        public Builder quotas(UserQuotas quotas) {
            this.quotas = Objects.requireNonNull(quotas, "quotas must not be null");
            return this;
        }

        /**
         * How many turns may wait for an approval at once, per user and on the whole server; a call that would wait
         * beyond either is denied at once, saying why. Defaults {@value #DEFAULT_MAX_WAITING_PER_USER} and
         * {@value #DEFAULT_MAX_WAITING_PER_SERVER}.
         */
        public Builder maxWaitingApprovals(int perUser, int perServer) {
            if (perUser < 1 || perServer < 1) {
                throw new IllegalArgumentException("waiting approvals per user and per server must be at least 1, got "
                        + perUser + " and " + perServer);
            }
            this.maxWaitingPerUser = perUser;
            this.maxWaitingPerServer = perServer;
            return this;
        }

        /**
         * The operator's environment: the providers' keys and base URLs that model specs resolve with and that
         * {@code GET /v1/models/} lists the models of (as {@code ModelSpec.parse} reads them), and
         * {@code ENGRAM_SECRETS_KEY}, the key that seals registered providers' credentials (base64 of 16, 24
         * or 32 bytes; without it, {@code POST /v1/providers} is refused). Default {@link System#getenv()}.
         *
         * @throws IllegalArgumentException at {@link #start()} if {@code ENGRAM_SECRETS_KEY} is not such a key
         */
        public Builder environment(Map<String, String> environment) {
            this.environment = Map.copyOf(Objects.requireNonNull(environment, "environment must not be null"));
            return this;
        }

        /**
         * How often the server looks for due scheduled messages ({@code store.schedules()}, set by agents' {@code schedule}
         * tool or {@code /v1/agents/{agent_id}/schedule}) and delivers them as turns, under each agent's turn lock.
         * Servers on one database deliver each firing once: a firing is claimed in the store before it is delivered.
         * Default {@link #DEFAULT_SCHEDULE_INTERVAL}.
         */
        public Builder scheduleInterval(Duration interval) {
            if (interval == null || interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("schedule interval must be positive, got " + interval);
            }
            this.scheduleInterval = interval;
            return this;
        }

        /**
         * Serves {@code GET /metrics} (Prometheus' text format, admin keys only) on a port of its own, on the same host,
         * with the probes {@code /livez} and {@code /readyz} (which the server's own port keeps too), instead of on
         * the server's port; 0 chooses a free one ({@link EngramServer#managementPort()} tells which). By default the
         * metrics are on the server's own port.
         */
        public Builder managementPort(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("management port must be between 0 and 65535, got " + port);
            }
            this.managementPort = port;
            return this;
        }

        /**
         * What API users may do with MCP servers (stdio programs they may start, whether their HTTP servers may be at
         * private addresses) and every server's timeouts and circuit; by default stdio is for admin keys only and user
         * keys reach public addresses only ({@link McpServerPolicy#defaults()}).
         */
        public Builder mcpServers(McpServerPolicy policy) {
            this.mcpPolicy = Objects.requireNonNull(policy, "MCP server policy must not be null");
            return this;
        }

        /**
         * Work the server waits for before {@code /readyz} says ready, such as opening the search index and loading the
         * embedding model in the background once it listens: until {@code warmUp} completes (normally or not), readiness
         * answers 503 {@code "starting"}, while every endpoint already answers. By default the server is ready once it
         * listens.
         */
        public Builder readyAfter(CompletionStage<?> warmUp) {
            this.readyAfter = Objects.requireNonNull(warmUp, "warm-up must not be null");
            return this;
        }

        /**
         * Work that runs once the server is ready, such as opening the search index and loading the embedding model in
         * the background ({@link EngramServer#warmUp()} among it): {@code /readyz} says 200 meanwhile, with
         * {@code "warm": false} until {@code warming} completes (normally or not). A search that arrives meanwhile waits
         * for what it needs, and is answered correctly, only later than once warm. Unlike {@link #readyAfter}, it does
         * not hold readiness back.
         */
        public Builder warmUpAfterReady(CompletionStage<?> warming) {
            this.warmingAfterReady = Objects.requireNonNull(warming, "warm-up must not be null");
            return this;
        }

        /**
         * Work that must succeed before the server listens, such as opening the store on another thread while the server
         * is built over it (the store's calls waiting for its open): {@link #start()} builds the server, then waits for
         * {@code opening}, and only then listens. When it failed, {@code start()} stops what it built and throws its
         * failure (the cause itself, not wrapped), and nothing ever listened. By default the server listens once built.
         */
        public Builder listenAfter(CompletionStage<?> opening) {
            this.listenAfter = Objects.requireNonNull(opening, "listen-after stage must not be null");
            return this;
        }

        private void awaitListenAfter() {
            try {
                listenAfter.toCompletableFuture().join();
            } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
                Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
                if (cause instanceof RuntimeException r) {
                    throw r;
                }
                if (cause instanceof Error err) {
                    throw err;
                }
                throw new IllegalStateException("the server could not start: " + cause.getMessage(), cause);
            }
        }

        /**
         * Builds the runtime, waits for {@link #listenAfter} (if given), starts listening, and starts delivering scheduled
         * messages; on a failure, stops whatever of it had started and throws.
         */
        public EngramServer start() {
            if (managementPort > 0 && managementPort == port) {
                throw new IllegalArgumentException("The management port must differ from the server's port (both are "
                        + port + "); leave it unset to serve /metrics on the server's port.");
            }
            EngramServer server = new EngramServer(this);
            try {
                awaitListenAfter();
                server.web.start();
                if (!server.web.isRunning()) {
                    // Helidon logs why (the address in use, say), stops, and returns without throwing
                    throw new IllegalStateException("Cannot listen on " + host + ", port " + port
                            + (managementPort >= 0 ? " (management port " + managementPort + ")" : "")
                            + ": the port is in use or the address cannot be bound; nothing was started");
                }
                // memory jobs whose process stopped (this server's last run, another server's, a CLI's); a job another
                // live process holds is left to it, and one whose owner stops while this server runs is taken up
                // within a lease
                server.memory.resumeAbandoned();
                server.memory.resumeAbandonedEvery(MemoryManager.LEASE);
                // uploads to folders whose server stopped, under the same lease: one another live server runs is left to it
                server.uploads.resumeAbandoned();
                server.uploads.resumeAbandonedEvery(MemoryManager.LEASE);
                server.batches.start(); // message batches whose server stopped are marked failed, saying what they did
                server.runtime.scheduler().start(scheduleInterval);
            } catch (RuntimeException | Error e) {
                // Nothing half-started: what was built (and, if it got so far, the listener) is stopped again.
                try {
                    server.close();
                } catch (RuntimeException | Error suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
            server.ops.started();
            LOG.info("Engram server listening on http://{}:{} (store {}, default model {})", host, server.port(),
                    store, defaultModel);
            return server;
        }
    }
}
