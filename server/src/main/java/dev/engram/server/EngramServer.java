package dev.engram.server;

import dev.engram.agents.AgentRuntime;
import dev.engram.framework.ModelPolicy;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import dev.engram.memory.UserQuotas;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

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
    /** Letta's port. */
    public static final int DEFAULT_PORT = ServerSettings.DEFAULT_PORT;
    /** Largest request body accepted (an agent file upload included): 32 MiB. */
    public static final long DEFAULT_MAX_BODY_BYTES = ServerSettings.DEFAULT_MAX_BODY_BYTES;
    /** The largest image of a user message, decoded: 5 MiB. */
    public static final int DEFAULT_MAX_IMAGE_BYTES = ImageParts.Limits.DEFAULT_MAX_BYTES;
    /** The most images one user message may carry. */
    public static final int DEFAULT_MAX_IMAGES_PER_MESSAGE = ImageParts.Limits.DEFAULT_MAX_PER_MESSAGE;
    /** Turns of one user that may wait for an approval at once. */
    public static final int DEFAULT_MAX_WAITING_PER_USER = ServerSettings.DEFAULT_MAX_WAITING_PER_USER;
    /** Turns of all users that may wait for an approval at once. */
    public static final int DEFAULT_MAX_WAITING_PER_SERVER = ServerSettings.DEFAULT_MAX_WAITING_PER_SERVER;
    /** How long a run and its events are kept after it ends, by default (see {@link Builder#runRetention}). */
    public static final Duration DEFAULT_RUN_RETENTION = ServerSettings.DEFAULT_RUN_RETENTION;
    /** The most events kept per run, by default (the newest; as Letta's stream length). */
    public static final int DEFAULT_MAX_RUN_EVENTS = ServerSettings.DEFAULT_MAX_RUN_EVENTS;
    /** How often the server looks for due scheduled messages. */
    public static final Duration DEFAULT_SCHEDULE_INTERVAL = ServerSettings.DEFAULT_SCHEDULE_INTERVAL;

    private final ServerParts parts;

    private EngramServer(ServerParts parts) {
        this.parts = parts;
    }

    /** The route table (for tests that walk every endpoint). */
    List<Route> routes() {
        return parts.routes.list();
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
        return parts.port();
    }

    /**
     * The management port ({@code /metrics} and the probes) when the server was built with {@link Builder#managementPort};
     * empty when the metrics are on {@link #port()}.
     */
    public OptionalInt managementPort() {
        return parts.managementPort();
    }

    /** The runtime the server runs its agents on. */
    public AgentRuntime runtime() {
        return parts.runtime;
    }

    /** The warm-up's rounds, scope and queries ({@link ServerWarmUp}'s). */
    static final int WARM_UP_ROUNDS = ServerWarmUp.ROUNDS;
    static final Scope WARM_UP_SCOPE = ServerWarmUp.SCOPE;
    static final List<String> WARM_UP_QUERIES = ServerWarmUp.QUERIES;

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
        ServerWarmUp.run(parts);
    }

    /** Waits until the server is closed (by {@link #close()}, e.g. from a shutdown hook). */
    public void awaitShutdown() throws InterruptedException {
        parts.awaitStopped();
    }

    /**
     * Stops the server: no new requests; turns in progress are cancelled (what they stored stays consistent,
     * as {@code Agent.cancel} promises) and given the shutdown grace to stop; then the runtime closes.
     * Idempotent.
     */
    @Override
    public void close() {
        parts.stop();
    }

    /** Builds a server; {@link #start()} starts it. */
    public static final class Builder {
        private final ServerSettings settings;

        private Builder(MemoryStore store, MemorySearch search) {
            settings = new ServerSettings(Objects.requireNonNull(store, "store must not be null"),
                    Objects.requireNonNull(search, "search must not be null"));
        }

        /**
         * Configures the agent runtime (models, tools, workspace, limits); the server sets its approval handler and its
         * permission broker (consent to block writes is asked of the API client).
         */
        public Builder runtime(Consumer<AgentRuntime.Builder> configure) {
            settings.runtime = Objects.requireNonNull(configure, "runtime configuration must not be null");
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
            int ceiling = settings.store.limits().maxImageBytes();
            if (maxBytesPerImage > ceiling) {
                throw new IllegalArgumentException("the largest image may be at most the store's MemoryLimits.maxImageBytes ("
                        + ceiling + " bytes), got " + maxBytesPerImage);
            }
            settings.imageLimits = new ImageParts.Limits(maxBytesPerImage, maxImagesPerMessage);
            return this;
        }

        /** The address to listen on; {@code 127.0.0.1} by default, {@code 0.0.0.0} for every interface. */
        public Builder host(String host) {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("host must not be blank");
            }
            settings.host = host;
            return this;
        }

        /** The port; 0 chooses a free one ({@link #port()} tells which). Default {@value #DEFAULT_PORT}. */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
            }
            settings.port = port;
            return this;
        }

        /** The model spec of agents created without {@code model} or {@code llm_config}. */
        public Builder defaultModel(String spec) {
            if (spec == null || spec.isBlank()) {
                throw new IllegalArgumentException("default model must not be blank");
            }
            settings.defaultModel = spec;
            return this;
        }

        /**
         * The models API users and imported agent files may name (the runtime's {@link AgentRuntime#modelPolicy()}):
         * provider models, plus the endpoints and scripts this allows; the {@link #defaultModel} and the models
         * registered with the runtime are always allowed. Default {@link ModelPolicy#providersOnly()}. Any other model
         * is refused with a 422 and nothing is stored. It replaces a policy set through {@link #runtime}.
         */
        public Builder modelPolicy(ModelPolicy policy) {
            settings.modelPolicy = Objects.requireNonNull(policy, "model policy must not be null");
            return this;
        }

        /** The largest request body accepted; larger ones get 413. Default 32 MiB. */
        public Builder maxBodyBytes(long bytes) {
            if (bytes < 1_024) {
                throw new IllegalArgumentException("max body size must be at least 1024 bytes, got " + bytes);
            }
            settings.maxBodyBytes = bytes;
            return this;
        }

        /** How often a stream asked for pings ({@code include_pings}) gets one. Default 5 s. */
        public Builder pingInterval(Duration interval) {
            if (interval == null || interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("ping interval must be positive, got " + interval);
            }
            settings.pingInterval = interval;
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
            settings.runRetention = retention;
            return this;
        }

        /** The most events kept per run (its newest): a resume from before them is refused. Default {@link #DEFAULT_MAX_RUN_EVENTS}. */
        public Builder maxRunEvents(int events) {
            if (events < 1) {
                throw new IllegalArgumentException("a run keeps at least 1 event, got " + events);
            }
            settings.maxRunEvents = events;
            return this;
        }

        /** How long {@link #close()} waits for cancelled turns and open requests. Default 10 s. */
        public Builder shutdownGrace(Duration grace) {
            if (grace == null || grace.isNegative()) {
                throw new IllegalArgumentException("shutdown grace must not be negative, got " + grace);
            }
            settings.shutdownGrace = grace;
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
            settings.keyCacheTtl = ttl;
            return this;
        }

        /** One turn at a time per agent: {@link TurnLock#local()} by default; a database lock for several instances. */
        public Builder turnLock(TurnLock lock) {
            settings.turnLock = Objects.requireNonNull(lock, "turn lock must not be null");
            return this;
        }

        /** How much each user may keep (agents, blocks, archival entries, notes, bytes), enforced by the store inside each write; default {@link UserQuotas#defaults()}. */
        public Builder quotas(UserQuotas quotas) {
            settings.quotas = Objects.requireNonNull(quotas, "quotas must not be null");
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
            settings.maxWaitingPerUser = perUser;
            settings.maxWaitingPerServer = perServer;
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
            settings.environment = Map.copyOf(Objects.requireNonNull(environment, "environment must not be null"));
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
            settings.scheduleInterval = interval;
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
            settings.managementPort = port;
            return this;
        }

        /**
         * What API users may do with MCP servers (stdio programs they may start, whether their HTTP servers may be at
         * private addresses) and every server's timeouts and circuit; by default stdio is for admin keys only and user
         * keys reach public addresses only ({@link McpServerPolicy#defaults()}).
         */
        public Builder mcpServers(McpServerPolicy policy) {
            settings.mcpPolicy = Objects.requireNonNull(policy, "MCP server policy must not be null");
            return this;
        }

        /**
         * Work the server waits for before {@code /readyz} says ready, such as opening the search index and loading the
         * embedding model in the background once it listens: until {@code warmUp} completes (normally or not), readiness
         * answers 503 {@code "starting"}, while every endpoint already answers. By default the server is ready once it
         * listens.
         */
        public Builder readyAfter(CompletionStage<?> warmUp) {
            settings.readyAfter = Objects.requireNonNull(warmUp, "warm-up must not be null");
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
            settings.warmingAfterReady = Objects.requireNonNull(warming, "warm-up must not be null");
            return this;
        }

        /**
         * Work that must succeed before the server listens, such as opening the store on another thread while the server
         * is built over it (the store's calls waiting for its open): {@link #start()} builds the server, then waits for
         * {@code opening}, and only then listens. When it failed, {@code start()} stops what it built and throws its
         * failure (the cause itself, not wrapped), and nothing ever listened. By default the server listens once built.
         */
        public Builder listenAfter(CompletionStage<?> opening) {
            settings.listenAfter = Objects.requireNonNull(opening, "listen-after stage must not be null");
            return this;
        }

        /**
         * Builds the runtime, waits for {@link #listenAfter} (if given), starts listening, and starts delivering scheduled
         * messages; on a failure, stops whatever of it had started and throws.
         */
        public EngramServer start() {
            if (settings.managementPort > 0 && settings.managementPort == settings.port) {
                throw new IllegalArgumentException("The management port must differ from the server's port (both are "
                        + settings.port + "); leave it unset to serve /metrics on the server's port.");
            }
            ServerParts parts = new ServerParts(settings);
            parts.listen();
            return new EngramServer(parts);
        }
    }
}
