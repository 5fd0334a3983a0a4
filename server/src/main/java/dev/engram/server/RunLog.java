package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentListener;
import dev.engram.agents.AgentResponse;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Run;
import dev.engram.memory.RunEvent;
import dev.engram.memory.RunStatus;
import dev.engram.memory.Step;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The runs of the server's turns (Letta's runs), kept in the store: every request that starts or resumes a turn is a
 * run (and every scheduled message's turn), with its steps ({@link RunSteps}: each written in the transaction of the
 * step's own messages, else with the run's event batches or its end, never in a transaction of their own), and a streamed run in the background ({@code background: true}) keeps its events ({@link Recorder}) while it
 * runs and for the retention after it ends, so that {@code POST /v1/runs/{id}/stream} can pick it up, on this server
 * or another on the same database. Events are written in batches, about every {@link #FLUSH_EVERY}, and at the end;
 * a running run's record is touched at least every {@link #HEARTBEAT}, so that a run whose server went away is known
 * ({@link #isStale}). Runs that ended more than the retention ago are purged as new runs start.
 */
final class RunLog {
    private static final Logger LOG = LoggerFactory.getLogger(RunLog.class);
    /** How often a recorder writes the events it holds. */
    static final Duration FLUSH_EVERY = Duration.ofMillis(100);
    /** How often a running run's record is touched without events. */
    static final Duration HEARTBEAT = Duration.ofSeconds(10);
    /** A running run not touched for this long has lost its server. */
    static final Duration STALE_AFTER = Duration.ofSeconds(60);
    private static final Duration PURGE_EVERY = Duration.ofMinutes(1);

    private final MemoryStore store;
    private final Duration retention;
    private final int maxEvents;
    private final AtomicLong lastPurge = new AtomicLong();
    /** The recorders of this server's runs that are running, by run id. */
    private final ConcurrentHashMap<String, Recorder> live = new ConcurrentHashMap<>();
    /** The steps of this server's runs, held until they are written with the run's events or its end. */
    private final RunSteps steps;

    RunLog(MemoryStore store, Duration retention, int maxEvents, Turns turns) {
        this.store = store;
        this.steps = new RunSteps(store, scope -> turns.running(scope).map(r -> r.runId));
        this.retention = retention;
        this.maxEvents = maxEvents;
    }

    /** The listener that collects the steps of the runs (the runtime's builder registers it). */
    AgentListener steps() {
        return steps;
    }

    /**
     * Records a run of the agent's turn in {@code session} (a conversation's id, or {@code default}) that starts now;
     * the steps the agent takes from now on are the run's.
     */
    Run start(Agent agent, String session, boolean background) {
        purgeNowAndThen();
        Run run = store.runs().start(agent.scope(), session, background);
        steps.open(run);
        return run;
    }

    /**
     * Ends a run, writing its steps not written yet in the same transaction (so a JSON answer, sent after this, never
     * shows a turn whose steps are not stored); a store failure is logged, since the answer is what counts.
     */
    void finish(Run run, RunStatus status, String stopReason) {
        List<Step> rest = steps.close(run);
        try {
            store.runs().finish(run.userId(), run.id(), status, stopReason, rest);
        } catch (RuntimeException e) {
            LOG.warn("Run {} could not be marked {} ({} steps not written): {}", run.id(), status.wire(), rest.size(),
                    e.toString());
        }
    }

    /**
     * Runs a scheduled message's turn as a run of its own (no client waits on it: not in the background), ended with
     * the turn's stop reason, failed when it failed, cancelled when it did not run (the server stopping).
     */
    AgentResponse scheduled(Agent agent, String session, Function<Run, AgentResponse> turn) {
        Run run = start(agent, session, false);
        String reason = "error";
        try {
            AgentResponse response = turn.apply(run);
            reason = TurnViews.stopReason(response.stopReason());
            return response;
        } catch (CancellationException e) {
            reason = "cancelled";
            throw e;
        } finally {
            finish(run, status(reason), reason);
        }
    }

    /** The recorder of a background run's events (which the caller closes when the run ends). */
    Recorder recorder(Run run) {
        Recorder r = new Recorder(run);
        live.put(run.id(), r);
        Thread.ofVirtual().name("engram-run-" + run.id()).start(r::flushNowAndThen);
        return r;
    }

    /** Writes what this server's recorder of the run holds, if the run runs here, so that a reader sees all it sent. */
    void flush(String runId) {
        Recorder r = live.get(runId);
        if (r != null) {
            r.flush();
        }
    }

    /** Whether a run still marked running has lost its server (its record was not touched for {@link #STALE_AFTER}). */
    boolean isStale(Run run) {
        return run.status().isActive() && run.updatedAt().isBefore(store.clock().instant().minus(STALE_AFTER));
    }

    /** The status a run ends with for Letta's stop reason. */
    static RunStatus status(String stopReason) {
        return switch (stopReason) {
            case "cancelled" -> RunStatus.CANCELLED;
            case "error" -> RunStatus.FAILED;
            default -> RunStatus.COMPLETED;
        };
    }

    /**
     * The JSON answer ({@code LettaResponse}) to a request for a turn in {@code session}: the turn as a run of its own,
     * ended with the turn's stop reason (failed when the turn failed, whose answer this throws).
     */
    ObjectNode respond(Api api, Agent agent, String session, TurnRequest request) {
        Run run = start(agent, session, false);
        String reason = "error";
        try {
            Turns.Running turn = TurnFlow.begin(api, agent, session, request.input(), false, null, run);
            ObjectNode answer = TurnViews.response(turn, TurnFlow.await(turn), request.view());
            reason = answer.path("stop_reason").path("stop_reason").asString("end_turn");
            return stamp(answer, run);
        } finally {
            finish(run, status(reason), reason);
        }
    }

    /** A JSON answer ({@code LettaResponse}) marked with its run: each message's {@code run_id} and the usage's {@code run_ids}. */
    static ObjectNode stamp(ObjectNode response, Run run) {
        for (JsonNode m : response.path("messages")) {
            if (m instanceof ObjectNode o) {
                o.put("run_id", run.id());
            }
        }
        if (response.get("usage") instanceof ObjectNode usage) {
            usage.putArray("run_ids").add(run.id());
        }
        return response;
    }

    private void purgeNowAndThen() {
        long now = System.nanoTime();
        long last = lastPurge.get();
        if (last != 0 && now - last < PURGE_EVERY.toNanos() || !lastPurge.compareAndSet(last, now)) {
            return;
        }
        Instant cutoff = store.clock().instant().minus(retention);
        try {
            int purged = store.runs().purge(cutoff, cutoff);
            if (purged > 0) {
                LOG.debug("Purged {} runs that ended before {}", purged, cutoff);
            }
        } catch (RuntimeException e) {
            LOG.warn("Old runs could not be purged: {}", e.toString());
        }
    }

    /**
     * The events of one background run on their way to the store: numbered by the stream, held, and written in
     * batches by a thread of its own (and at the end), the store keeping the run's newest {@code maxEvents}. A write
     * that fails is retried with the next batch.
     */
    final class Recorder {
        private final Run run;
        private final List<RunEvent> held = new ArrayList<>();
        /** The run's steps not written yet (guarded by {@code this}). */
        private final List<Step> heldSteps = new ArrayList<>();
        private long heartbeat = System.nanoTime();
        /** Whether the last write failed, perhaps after some of it was stored. */
        private boolean uncertain;
        private volatile boolean closed;

        private Recorder(Run run) {
            this.run = run;
        }

        /** Holds an event for the store. */
        void add(RunEvent event) {
            synchronized (held) {
                held.add(event);
            }
        }

        private void flushNowAndThen() {
            try {
                while (!closed) {
                    Thread.sleep(FLUSH_EVERY);
                    if (!closed) {
                        flush();
                    }
                }
            } catch (InterruptedException e) {
                // the server stops
            }
        }

        /** Writes the held events (or, without any for a while, touches the run's record). */
        synchronized void flush() {
            try {
                if (uncertain) {
                    // a write that failed may have been stored (its answer lost): keep only what is not
                    long stored = store.runs().lastSeq(run.userId(), run.id());
                    synchronized (held) {
                        held.removeIf(e -> e.seq() <= stored);
                    }
                    uncertain = false;
                }
                List<RunEvent> batch;
                synchronized (held) {
                    batch = List.copyOf(held);
                }
                heldSteps.addAll(steps.take(run));
                if (!batch.isEmpty() || !heldSteps.isEmpty()) {
                    // the steps ride with the events: one transaction per batch, never one per step
                    store.runs().append(run.userId(), run.id(), batch, maxEvents, List.copyOf(heldSteps));
                    heldSteps.clear();
                    synchronized (held) {
                        held.subList(0, batch.size()).clear();
                    }
                    heartbeat = System.nanoTime();
                } else if (System.nanoTime() - heartbeat > HEARTBEAT.toNanos()) {
                    store.runs().touch(run.userId(), run.id());
                    heartbeat = System.nanoTime();
                }
            } catch (RuntimeException e) {
                uncertain = true;
                LOG.warn("Events of run {} not written yet: {}", run.id(), e.toString());
            }
        }

        /** Writes what is held and ends the run with its stop reason. */
        void close(String stopReason) {
            // the flusher is not interrupted (that would break a write it is doing): it stops at its next wake-up
            closed = true;
            try {
                flush();
            } finally {
                live.remove(run.id());
                synchronized (this) {
                    // steps a failed flush kept go with the run's end (written again: a step's id makes it once)
                    steps.hold(run, heldSteps);
                    heldSteps.clear();
                }
                finish(run, status(stopReason), stopReason);
            }
        }
    }

    /** The user's run of that id, among the caller's users; a 404 for any other. */
    Run get(Api api, Caller caller, String runId) {
        for (String user : api.users(caller)) {
            Optional<Run> run = store.runs().get(user, runId);
            if (run.isPresent()) {
                return run.get();
            }
        }
        throw ApiException.notFound("Run '" + runId + "' not found.");
    }
}
