package dev.engram.server;

import dev.engram.agents.AgentRuntime;
import dev.engram.framework.ModelPolicy;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.UserQuotas;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * What an {@code EngramServer.Builder} has set, each value checked by its setter, and the defaults of what it has not
 * (the public {@code EngramServer.DEFAULT_...} constants name these): the server is built from them.
 */
final class ServerSettings {
    static final int DEFAULT_PORT = 8283;
    static final long DEFAULT_MAX_BODY_BYTES = 32L << 20;
    static final int DEFAULT_MAX_WAITING_PER_USER = 100;
    static final int DEFAULT_MAX_WAITING_PER_SERVER = 1_000;
    static final Duration DEFAULT_RUN_RETENTION = Duration.ofHours(1);
    static final int DEFAULT_MAX_RUN_EVENTS = 10_000;
    static final Duration DEFAULT_SCHEDULE_INTERVAL = Duration.ofSeconds(1);

    final MemoryStore store;
    final MemorySearch search;
    Consumer<AgentRuntime.Builder> runtime = b -> { };
    String host = "127.0.0.1";
    int port = DEFAULT_PORT;
    String defaultModel = "openai:gpt-4o-mini";
    ModelPolicy modelPolicy = ModelPolicy.providersOnly();
    long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
    Duration pingInterval = Duration.ofSeconds(5);
    Duration runRetention = DEFAULT_RUN_RETENTION;
    int maxRunEvents = DEFAULT_MAX_RUN_EVENTS;
    Duration shutdownGrace = Duration.ofSeconds(10);
    Duration keyCacheTtl = Duration.ofSeconds(1);
    TurnLock turnLock = TurnLock.local();
    UserQuotas quotas = UserQuotas.defaults();
    int maxWaitingPerUser = DEFAULT_MAX_WAITING_PER_USER;
    int maxWaitingPerServer = DEFAULT_MAX_WAITING_PER_SERVER;
    Map<String, String> environment = System.getenv();
    Duration scheduleInterval = DEFAULT_SCHEDULE_INTERVAL;
    /** Negative: the metrics are on the server's own port. */
    int managementPort = -1;
    ImageParts.Limits imageLimits = ImageParts.Limits.defaults();
    CompletionStage<?> readyAfter = CompletableFuture.completedFuture(null);
    CompletionStage<?> warmingAfterReady = CompletableFuture.completedFuture(null);
    CompletionStage<?> listenAfter = CompletableFuture.completedFuture(null);
    McpServerPolicy mcpPolicy = McpServerPolicy.defaults();

    ServerSettings(MemoryStore store, MemorySearch search) {
        this.store = store;
        this.search = search;
    }

    /** Whether {@code /metrics} and the probes have a port of their own. */
    boolean managed() {
        return managementPort >= 0;
    }
}
