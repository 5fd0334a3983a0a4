package dev.engram.server;

import dev.engram.agents.AgentEvent;
import dev.engram.agents.AgentListener;
import dev.engram.agents.AgentStopReason;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;

/**
 * The server's meters, in a Micrometer registry scraped as Prometheus' text format by {@code GET /metrics}. The agents
 * and memory modules know nothing of Micrometer: the runtime's {@link AgentEvent}s (steps, model calls, tool calls) are
 * heard here as an {@link AgentListener}; turns, requests and searches are timed by the server's own classes.
 *
 * <p>Tag values that clients choose are bounded: users, models and tools each keep a series of their own for the first
 * {@link #MAX_USERS}, {@link #MAX_MODELS} and {@link #MAX_TOOLS} distinct values this process sees, and any later one
 * is counted under {@value #OTHER}, so that a server with many users (or an agent file naming many tools) cannot grow
 * the scrape without bound.
 */
final class Metrics implements AgentListener {
    /** The tag value of everything past a tag's bound. */
    static final String OTHER = "_other";
    /** Users with a request-rate series of their own. */
    static final int MAX_USERS = 100;
    /** Models with series of their own. */
    static final int MAX_MODELS = 50;
    /** Tools with series of their own. */
    static final int MAX_TOOLS = 200;

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Bounded users = new Bounded(MAX_USERS);
    private final Bounded models = new Bounded(MAX_MODELS);
    private final Bounded tools = new Bounded(MAX_TOOLS);
    /** When the running step of each agent began (one step at a time per agent in a runtime). */
    private final ConcurrentHashMap<Scope, Long> stepStarts = new ConcurrentHashMap<>();
    private final AtomicInteger turnsWaiting = new AtomicInteger();

    /** Registers the gauges that do not depend on the server's parts. */
    Metrics() {
        gauge("engram.turns.waiting", "Turns waiting for their agent's turn lock (another turn of the agent runs)",
                turnsWaiting, AtomicInteger::get);
    }

    /** The registry's text in Prometheus' exposition format. */
    String scrape() {
        return registry.scrape();
    }

    /** A gauge read at each scrape. */
    private <T> void gauge(String name, String description, T of, ToDoubleFunction<T> value) {
        Gauge.builder(name, of, value).description(description).strongReference(true).register(registry);
    }

    /** Registers the gauges over the server's parts. */
    void bind(Turns turns, MemoryStore store, MeteredSearch search) {
        gauge("engram.approvals.pending", "Turns paused for a client's approval (or consent) of a tool call", turns,
                Turns::waiting);
        gauge("engram.turns.running", "Turns running on this server", turns, Turns::runningCount);
        gauge("engram.index.lag", "Change-log events the search index has not applied yet (NaN until the index is open)",
                search, s -> s.lag(store));
    }

    /** A turn begins waiting for its agent's lock; the returned action ends the wait. */
    Runnable waitingForLock() {
        turnsWaiting.incrementAndGet();
        return turnsWaiting::decrementAndGet;
    }

    /** A turn ended, with the agent's stop reason, or {@code failed}. */
    void turn(Duration took, String outcome) {
        Timer.builder("engram.turns").description("Turns (one message to an agent, with all its steps)")
                .tag("outcome", outcome).register(registry).record(took);
    }

    /** The outcome tag of a turn that stopped for {@code reason}. */
    static String outcome(AgentStopReason reason) {
        return reason.name().toLowerCase(Locale.ROOT);
    }

    /** A search of the memory (archival, notes, messages) ended. */
    void search(Duration took, boolean failed) {
        Timer.builder("engram.search").description("Searches of memory (BM25 and vectors, fused)")
                .tag("outcome", failed ? "failed" : "ok").register(registry).record(took);
    }

    /** A request was answered: per user (bounded), method and status class. */
    void request(String user, String method, int status, Duration took) {
        Timer.builder("engram.http.requests").description("HTTP requests, per user (the first " + MAX_USERS
                        + " users seen; later ones as " + OTHER + "), method and status class")
                .tag("user", users.of(user)).tag("method", method).tag("status", (status / 100) + "xx")
                .register(registry).record(took);
    }

    @Override
    public void onEvent(AgentEvent event) {
        switch (event) {
            case AgentEvent.StepStarted s -> stepStarts.put(s.scope(), System.nanoTime());
            case AgentEvent.StepFinished f -> {
                Long start = stepStarts.remove(f.scope());
                if (start != null) {
                    Timer.builder("engram.steps").description("Agent steps (a model call and its tool calls)")
                            .register(registry).record(Duration.ofNanos(System.nanoTime() - start));
                }
            }
            case AgentEvent.ModelCalled m -> {
                if (m.failed()) {
                    stepStarts.remove(m.scope()); // the step ends with the failure, without a StepFinished
                }
                String model = models.of(m.model());
                Timer.builder("engram.model.calls").description("Calls to agents' models").tag("model", model)
                        .tag("outcome", m.failed() ? "failed" : "ok").register(registry).record(m.duration());
                tokens(model, "input", m.inputTokens());
                tokens(model, "output", m.outputTokens());
            }
            case AgentEvent.ToolCallFinished t -> Timer.builder("engram.tool.calls").description("Tool calls by tool and status")
                    .tag("tool", tools.of(t.result().toolName()))
                    .tag("status", t.result().status().name().toLowerCase(Locale.ROOT))
                    .register(registry).record(t.result().duration());
            default -> {
            }
        }
    }

    private void tokens(String model, String direction, int count) {
        Counter.builder("engram.model.tokens").description("Tokens the providers reported, per model, input and output")
                .tag("model", model).tag("direction", direction).register(registry).increment(count);
    }

    /** The first {@code max} distinct values keep their own tag value; later ones are {@link #OTHER}. */
    static final class Bounded {
        private final int max;
        private final Set<String> kept = ConcurrentHashMap.newKeySet();

        Bounded(int max) {
            this.max = max;
        }

        String of(String value) {
            if (kept.contains(value)) {
                return value;
            }
            synchronized (this) {
                if (kept.size() < max) {
                    kept.add(value);
                    return value;
                }
            }
            return OTHER;
        }
    }
}
