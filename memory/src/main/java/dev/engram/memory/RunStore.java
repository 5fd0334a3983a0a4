package dev.engram.memory;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The runs of each user's agents ({@link Run}), their steps ({@link Step}) and the events of the streamed ones
 * ({@link RunEvent}), kept while a
 * run lives and for a while after it ends, so that a client whose stream broke can pick it up where it broke. Backends
 * keep them through the optional run methods of {@link dev.engram.memory.spi.Rows}; over a backend without them every
 * method here throws {@link UnsupportedOperationException}. A run is always read and changed as its user's: another
 * user's run is not there.
 */
public final class RunStore {
    /** The most events read at once. */
    public static final int MAX_BATCH = 10_000;

    private final StoreCore store;

    RunStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Records a run of the scope's agent that starts now, {@link RunStatus#RUNNING}.
     *
     * @param conversationId the conversation's id, or {@code default} for the agent's own history
     */
    public Run start(Scope scope, String conversationId, boolean background) {
        Checks.notNull(scope, "scope");
        Checks.id(conversationId, "conversation id");
        return store.write(rows -> {
            Instant now = store.now();
            Run run = new Run(Ids.next("run"), scope.userId(), scope.agentId(), conversationId, background,
                    RunStatus.RUNNING, "", now, now, Optional.empty());
            rows.putRun(run);
            return run;
        });
    }

    /** The user's run of that id. */
    public Optional<Run> get(String userId, String id) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "run id");
        return store.read(rows -> rows.run(id)).filter(r -> r.userId().equals(userId));
    }

    /** The run of the scope's agent in that conversation that started last. */
    public Optional<Run> latest(Scope scope, String conversationId) {
        Checks.notNull(scope, "scope");
        Checks.notNull(conversationId, "conversation id");
        return store.read(rows -> rows.latestRun(scope.userId(), scope.agentId(), conversationId));
    }

    /**
     * Adds events to the user's running run, in order, and drops its oldest events beyond the newest {@code keep}.
     *
     * @throws NotFoundException        if the user has no run of that id
     * @throws IllegalArgumentException if the run has ended, or the events do not follow its last one without a gap
     *                                  (nothing is stored)
     */
    public void append(String userId, String runId, List<RunEvent> events, int keep) {
        append(userId, runId, events, keep, List.of());
    }

    /**
     * Adds events to the user's running run as {@link #append(String, String, List, int)} does, and stores the run's
     * steps taken since the last write in the same transaction (a server writes a run's steps in batches with its
     * events, never one transaction per step).
     *
     * @throws NotFoundException        if the user has no run of that id
     * @throws IllegalArgumentException as {@link #append(String, String, List, int)}, or if a step is not of this run
     *                                  and user (nothing is stored)
     */
    public void append(String userId, String runId, List<RunEvent> events, int keep, List<Step> steps) {
        Checks.noNulls(events, "events");
        Checks.noNulls(steps, "steps");
        if (keep < 1) {
            throw new IllegalArgumentException("a run keeps at least 1 event, got keep = " + keep);
        }
        if (events.isEmpty() && steps.isEmpty()) {
            return;
        }
        store.write(rows -> {
            Run run = own(rows.run(runId), userId, runId);
            checkSteps(run, steps);
            if (!run.status().isActive()) {
                throw new IllegalArgumentException("run '" + runId + "' has ended (" + run.status().wire()
                        + "); it takes no more events");
            }
            long last = rows.lastRunSeq(runId);
            for (RunEvent e : events) {
                if (e.seq() != ++last) {
                    throw new IllegalArgumentException("run '" + runId + "' expects event " + last + " next, got "
                            + e.seq() + "; send its events in order without gaps");
                }
            }
            if (!events.isEmpty()) {
                rows.appendRunEvents(runId, events);
            }
            if (!steps.isEmpty()) {
                rows.putSteps(steps);
            }
            if (last > keep) {
                rows.deleteRunEvents(runId, last - keep);
            }
            rows.putRun(updated(run, run.status(), run.stopReason(), Optional.empty()));
            return null;
        });
    }

    /**
     * Stores steps of the user's run as they are taken, whatever the run's status (a cancel may have ended it first), in
     * the caller's {@linkplain MemoryStore#inTransaction unit of work} when one is open: a server writes each step's
     * record with that step's own messages, one transaction, no commit of its own. A run that is not there (deleted
     * meanwhile) takes nothing and this returns {@code false}, so that it never spoils the caller's unit; a step
     * written again (by its id) is stored once.
     *
     * @throws IllegalArgumentException if a step is not of this run and user (nothing is stored)
     */
    public boolean addSteps(String userId, String runId, List<Step> steps) {
        Checks.notNull(userId, "user id");
        Checks.notNull(runId, "run id");
        Checks.noNulls(steps, "steps");
        if (steps.isEmpty()) {
            return true;
        }
        return store.write(rows -> {
            Optional<Run> run = rows.run(runId).filter(r -> r.userId().equals(userId));
            if (run.isEmpty()) {
                return false;
            }
            checkSteps(run.get(), steps);
            rows.putSteps(steps);
            return true;
        });
    }

    /**
     * Notes that the user's running run is still alive (its server is working on it), without an event.
     *
     * @throws NotFoundException if the user has no run of that id
     */
    public Run touch(String userId, String runId) {
        return store.write(rows -> {
            Run run = own(rows.run(runId), userId, runId);
            if (!run.status().isActive()) {
                return run;
            }
            Run touched = updated(run, run.status(), run.stopReason(), Optional.empty());
            rows.putRun(touched);
            return touched;
        });
    }

    /**
     * Ends the user's run with a final status and the reason it stopped (Letta's stop reason); a run that has already
     * ended stays as it ended.
     *
     * @throws NotFoundException        if the user has no run of that id
     * @throws IllegalArgumentException if {@code status} is not a final status
     */
    public Run finish(String userId, String runId, RunStatus status, String stopReason) {
        return finish(userId, runId, status, stopReason, List.of());
    }

    /**
     * Ends the user's run as {@link #finish(String, String, RunStatus, String)} does and stores its steps not written
     * yet in the same transaction; the steps are stored also when the run had already ended (a cancel that came first).
     *
     * @throws NotFoundException        if the user has no run of that id
     * @throws IllegalArgumentException if {@code status} is not a final status, or a step is not of this run and user
     *                                  (nothing is stored)
     */
    public Run finish(String userId, String runId, RunStatus status, String stopReason, List<Step> steps) {
        Checks.noNulls(steps, "steps");
        Checks.notNull(status, "status");
        Checks.unicode(stopReason, "stop reason");
        if (status.isActive()) {
            throw new IllegalArgumentException("a run ends completed, failed or cancelled, not " + status.wire());
        }
        return store.write(rows -> {
            Run run = own(rows.run(runId), userId, runId);
            checkSteps(run, steps);
            if (!steps.isEmpty()) {
                rows.putSteps(steps);
            }
            if (!run.status().isActive()) {
                return run;
            }
            Run ended = updated(run, status, stopReason, Optional.of(store.now()));
            rows.putRun(ended);
            return ended;
        });
    }

    /**
     * The user's run's events after sequence number {@code afterSeq}, oldest first, at most {@code limit} (up to
     * {@link #MAX_BATCH}). The events before the oldest one kept are gone: the first event returned may then follow
     * {@code afterSeq} with a gap.
     *
     * @throws NotFoundException if the user has no run of that id
     */
    public List<RunEvent> events(String userId, String runId, long afterSeq, int limit) {
        if (limit < 1 || limit > MAX_BATCH) {
            throw new IllegalArgumentException("read 1 to " + MAX_BATCH + " run events at once, not " + limit);
        }
        return store.read(rows -> {
            own(rows.run(runId), userId, runId);
            return rows.runEvents(runId, Math.max(0, afterSeq), limit);
        });
    }

    /** The sequence number of the user's run's last event; 0 when it has none. */
    public long lastSeq(String userId, String runId) {
        return store.read(rows -> {
            own(rows.run(runId), userId, runId);
            return rows.lastRunSeq(runId);
        });
    }

    /**
     * Removes, with their events, the runs that ended before {@code endedBefore} and the runs still marked running
     * whose server last wrote to them before {@code staleBefore} (their server is gone); returns how many.
     */
    public int purge(Instant endedBefore, Instant staleBefore) {
        Checks.notNull(endedBefore, "endedBefore");
        Checks.notNull(staleBefore, "staleBefore");
        return store.write(rows -> rows.deleteRuns(endedBefore, staleBefore));
    }

    /** The user's runs, oldest first (runs are kept for a while after they end: this is what is kept). */
    public List<Run> list(String userId) {
        Checks.notNull(userId, "user id");
        return store.read(rows -> rows.userRuns(userId));
    }

    /**
     * Removes the user's run with its events and steps (a server cancels it first if it runs).
     *
     * @throws NotFoundException if the user has no run of that id
     */
    public void delete(String userId, String runId) {
        store.write(rows -> {
            own(rows.run(runId), userId, runId);
            return rows.deleteRun(runId);
        });
    }

    /**
     * The user's run's steps, oldest first.
     *
     * @throws NotFoundException if the user has no run of that id
     */
    public List<Step> steps(String userId, String runId) {
        return store.read(rows -> {
            own(rows.run(runId), userId, runId);
            return rows.runSteps(runId);
        });
    }

    /** Every step of the user's runs, oldest first. */
    public List<Step> steps(String userId) {
        Checks.notNull(userId, "user id");
        return store.read(rows -> rows.userSteps(userId));
    }

    /** The user's step of that id. */
    public Optional<Step> step(String userId, String stepId) {
        Checks.notNull(userId, "user id");
        Checks.notNull(stepId, "step id");
        return store.read(rows -> rows.step(stepId)).filter(s -> s.userId().equals(userId));
    }

    /**
     * Sets the feedback of the user's step ({@code positive}, {@code negative}, or empty to clear it) and its tags.
     *
     * @throws NotFoundException        if the user has no step of that id
     * @throws IllegalArgumentException for other feedback or a blank tag (nothing is changed)
     */
    public Step feedback(String userId, String stepId, String feedback, List<String> tags) {
        Checks.notNull(feedback, "feedback");
        Checks.noNulls(tags, "tags");
        return store.write(rows -> {
            Step step = rows.step(stepId).filter(s -> s.userId().equals(userId))
                    .orElseThrow(() -> new NotFoundException("Step '" + stepId + "' not found."));
            Step changed = step.withFeedback(feedback, tags);
            rows.putSteps(List.of(changed));
            return changed;
        });
    }

    private static void checkSteps(Run run, List<Step> steps) {
        for (Step s : steps) {
            if (!s.runId().equals(run.id()) || !s.userId().equals(run.userId()) || !s.agentId().equals(run.agentId())) {
                throw new IllegalArgumentException("step '" + s.id() + "' is of run '" + s.runId() + "' (agent '"
                        + s.agentId() + "'), not of run '" + run.id() + "' (agent '" + run.agentId() + "')");
            }
        }
    }

    private Run updated(Run run, RunStatus status, String stopReason, Optional<Instant> completedAt) {
        return new Run(run.id(), run.userId(), run.agentId(), run.conversationId(), run.background(), status, stopReason,
                run.createdAt(), store.now(), completedAt);
    }

    private static Run own(Optional<Run> run, String userId, String runId) {
        return run.filter(r -> r.userId().equals(userId))
                .orElseThrow(() -> new NotFoundException("Run '" + runId + "' not found."));
    }
}
