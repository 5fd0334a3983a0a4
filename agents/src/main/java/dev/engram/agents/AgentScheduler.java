package dev.engram.agents;

import dev.engram.memory.MemoryStore;
import dev.engram.memory.Schedule;
import dev.engram.memory.ScheduleLimits;
import dev.engram.memory.ScheduleTiming;
import dev.engram.memory.Scope;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers the store's due {@linkplain Schedule schedules} (set with the {@code schedule} tool or
 * {@code store.schedules()}) as turns of their agents, each in the session it was set in. The message
 * an agent receives starts with a line that says it is scheduled, and when it comes late.
 *
 * <p>Schedules live in the store, so they survive restarts: a firing that fell due while nothing ran is
 * delivered once, late, when a scheduler next runs, and marked so; a recurring schedule that missed
 * several firings is delivered once for all of them and then waits for its next time. Delivery is at
 * least once: a schedule is held while it is delivered, and one whose deliverer died is delivered again
 * after {@link #LEASE}.
 *
 * <p>Each user has a budget of scheduled turns ({@link ScheduleLimits#firingsPerHour()} and
 * {@link ScheduleLimits#firingsPerDay()}, counted by this scheduler): a firing beyond it is skipped (a one-off is
 * then done, a recurring schedule waits for its next time), its delivery says why, and the first skip of a run of
 * them is logged.
 *
 * <p>Time is the store's clock ({@link MemoryStore#clock()}). A host either {@linkplain #start starts}
 * the scheduler, which then looks for due schedules at an interval, or calls {@link #runDue()} itself. A host that
 * runs turns its own way (a server holding each agent's turn lock) gives the scheduler a {@link TurnRunner}.
 * Thread-safe.
 */
public final class AgentScheduler {
    private static final Logger LOG = LoggerFactory.getLogger(AgentScheduler.class);

    /** How long a delivery holds its schedule before another scheduler may deliver it again. */
    public static final Duration LEASE = Duration.ofMinutes(15);

    /** A firing delivered more than this after its time is late. */
    public static final Duration GRACE = Duration.ofMinutes(1);

    /** The most schedules one {@link #runDue()} delivers. */
    static final int BATCH = 100;

    private final MemoryStore store;
    private final BiFunction<String, String, Agent> agents;
    private final BooleanSupplier open;
    private final List<Consumer<ScheduledDelivery>> listeners = new CopyOnWriteArrayList<>();
    private volatile TurnRunner turns = Agent::send;
    private ScheduledExecutorService timer;
    private final FiringBudget budget;
    private final ScheduleLimits limits;
    private volatile boolean unsupported;

    AgentScheduler(MemoryStore store, BiFunction<String, String, Agent> agents, BooleanSupplier open, ScheduleLimits limits) {
        this.store = store;
        this.agents = agents;
        this.open = open;
        this.budget = new FiringBudget(limits);
        this.limits = limits;
    }

    /**
     * The runtime's schedule limits: the budget this scheduler delivers within, and what a host creating schedules
     * for its agents should create them within ({@code store.schedules().limitedBy(limits())}), as the
     * {@code schedule} tool does.
     */
    public ScheduleLimits limits() {
        return limits;
    }

    /**
     * How a delivery's turn runs: by default {@code agent.send(sessionId, message)} on the scheduler's thread. A host
     * with its own rules for turns (one at a time per agent across servers, approvals) runs them through its own.
     */
    @FunctionalInterface
    public interface TurnRunner {
        /**
         * Runs the turn and returns the agent's response.
         *
         * @throws CancellationException if the turn was not run because the host is stopping: the schedule is given
         *                               back and delivered later, by this or another scheduler
         */
        AgentResponse run(Agent agent, String sessionId, String message);
    }

    /** Runs the deliveries' turns through {@code runner} from now on (see {@link TurnRunner}). */
    public void runTurnsWith(TurnRunner runner) {
        this.turns = Objects.requireNonNull(runner, "turn runner must not be null");
    }

    /** Hears every delivery, after its turn, on the thread that ran it (e.g. to forward the reply to the user). */
    public void onDelivery(Consumer<ScheduledDelivery> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
    }

    /**
     * Looks for due schedules every {@code interval} on a daemon thread until {@link #stop()} or the runtime closes.
     * Idempotent.
     */
    public synchronized void start(Duration interval) {
        start(interval, scope -> true);
    }

    /** {@link #start(Duration)} for the schedules of the agents {@code which} accepts (e.g. one user's). */
    public synchronized void start(Duration interval, Predicate<Scope> which) {
        Objects.requireNonNull(interval, "interval must not be null");
        Objects.requireNonNull(which, "scope filter must not be null");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("scheduler interval must be positive, got " + interval);
        }
        if (timer != null) {
            return;
        }
        timer = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("engram-scheduler").factory());
        timer.scheduleWithFixedDelay(() -> {
            try {
                runDue(which);
            } catch (RuntimeException e) {
                LOG.warn("Delivering scheduled messages failed; trying again in {}", interval, e);
            }
        }, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops looking for due schedules; a delivery in progress finishes (closing the runtime cancels its turn). Idempotent. */
    public synchronized void stop() {
        if (timer != null) {
            timer.shutdown();
            timer = null;
        }
    }

    /**
     * Delivers every schedule due now (up to {@value #BATCH}) and returns the deliveries, in the order the
     * schedules fell due. An agent's schedules are delivered one after another; different agents' at once.
     * Returns nothing over a backend that keeps no schedules.
     */
    public List<ScheduledDelivery> runDue() {
        return runDue(scope -> true);
    }

    /** {@link #runDue()} for the schedules of the agents {@code which} accepts. */
    public List<ScheduledDelivery> runDue(Predicate<Scope> which) {
        Objects.requireNonNull(which, "scope filter must not be null");
        if (unsupported || !open.getAsBoolean()) {
            return List.of();
        }
        List<Schedule> claimed;
        try {
            claimed = store.schedules().claimDue(LEASE, BATCH, which);
        } catch (UnsupportedOperationException e) {
            unsupported = true;
            LOG.info("Scheduled messages are off: {}", e.getMessage());
            return List.of();
        }
        if (claimed.isEmpty()) {
            return List.of();
        }
        Map<Scope, List<Schedule>> byAgent = new LinkedHashMap<>();
        claimed.forEach(s -> byAgent.computeIfAbsent(s.scope(), k -> new ArrayList<>()).add(s));
        List<Future<List<ScheduledDelivery>>> running = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (List<Schedule> ofAgent : byAgent.values()) {
                running.add(pool.submit(() -> ofAgent.stream().map(this::deliver).flatMap(Optional::stream).toList()));
            }
        }
        List<ScheduledDelivery> out = new ArrayList<>();
        for (Future<List<ScheduledDelivery>> f : running) {
            try {
                out.addAll(f.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException e) {
                LOG.warn("A scheduled delivery failed", e.getCause());
            }
        }
        return out;
    }

    /** Delivers one claimed schedule; empty when the runtime closed first (the schedule is given back). */
    private Optional<ScheduledDelivery> deliver(Schedule s) {
        if (!open.getAsBoolean()) {
            store.schedules().release(s);
            return Optional.empty();
        }
        Instant due = s.nextRunAt().orElseThrow();
        Instant now = store.clock().instant();
        boolean late = Duration.between(due, now).compareTo(GRACE) > 0;
        int missed = late ? missedAfter(s.timing(), due, now) : 0;
        String message = header(s, due, now, late, missed) + "\n" + s.message();
        Optional<AgentResponse> response = Optional.empty();
        Optional<String> error = Optional.empty();
        Optional<FiringBudget.Refusal> refusal = budget.take(s.scope().userId(), now);
        if (refusal.isPresent()) {
            error = Optional.of("skipped: " + refusal.get().reason());
            if (refusal.get().firstSkip()) {
                LOG.warn("Scheduled message {} to {} is skipped, and so will be the user's next ones until the budget has "
                        + "room again: {}", s.id(), s.scope(), refusal.get().reason());
            }
            return Optional.of(finish(s, new ScheduledDelivery(s, message, late, missed, response, error)));
        }
        try {
            Agent agent = agents.apply(s.scope().userId(), s.scope().agentId());
            response = Optional.of(turns.run(agent, s.sessionId(), message));
        } catch (CancellationException e) {
            store.schedules().release(s);
            return Optional.empty();
        } catch (AgentNotFoundException e) {
            store.schedules().cancel(s.scope().userId(), s.id());
            error = Optional.of("agent '" + s.scope().agentId() + "' no longer exists; the schedule is cancelled");
            LOG.warn("Schedule {} of {} is cancelled: {}", s.id(), s.scope(), error.get());
        } catch (RuntimeException e) {
            if (!open.getAsBoolean()) {
                store.schedules().release(s);
                return Optional.empty();
            }
            error = Optional.of(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            LOG.warn("Scheduled message {} to {} did not complete its turn: {}", s.id(), s.scope(), error.get());
        }
        return Optional.of(finish(s, new ScheduledDelivery(s, message, late, missed, response, error)));
    }

    /** Records the firing and tells the listeners. */
    private ScheduledDelivery finish(Schedule s, ScheduledDelivery delivery) {
        store.schedules().finishRun(s);
        for (Consumer<ScheduledDelivery> l : listeners) {
            try {
                l.accept(delivery);
            } catch (RuntimeException e) {
                LOG.warn("Schedule delivery listener {} failed", l, e);
            }
        }
        return delivery;
    }

    private static String header(Schedule s, Instant due, Instant now, boolean late, int missed) {
        String timing = switch (s.timing()) {
            case ScheduleTiming.Once o -> "set for " + o.at();
            case ScheduleTiming.Cron c -> "repeating by cron '" + c.expression() + "' in " + c.zone().getId();
        };
        StringBuilder b = new StringBuilder("[Scheduled message ").append(s.id()).append(", ").append(timing);
        if (late) {
            b.append("; LATE: due ").append(due).append(", delivered ").append(now.truncatedTo(ChronoUnit.SECONDS))
                    .append(" because the scheduler was not running");
            if (missed > 0) {
                b.append("; ").append(missed).append(missed == 1 ? " later firing was" : " later firings were")
                        .append(" missed too and this one stands for ").append(missed == 1 ? "it" : "them");
            }
        }
        return b.append("]").toString();
    }

    /** How many firings a recurring schedule had after {@code due} and up to {@code now} (at most 10,000). */
    private static int missedAfter(ScheduleTiming timing, Instant due, Instant now) {
        int missed = 0;
        Optional<Instant> next = timing.nextAfter(due);
        while (next.isPresent() && !next.get().isAfter(now) && missed < 10_000) {
            missed++;
            next = timing.nextAfter(next.get());
        }
        return missed;
    }
}
