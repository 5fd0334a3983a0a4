package dev.engram.agents;

import dev.engram.memory.Job;
import dev.engram.memory.MemoryStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The jobs one {@link MemoryManager} holds (accepted or resumed, and not yet ended), kept alive in the store while it
 * holds them: every {@link MemoryManager#HEARTBEAT} each one is {@linkplain dev.engram.memory.JobStore#touch touched}.
 * A job that is active but unchanged for longer than {@link MemoryManager#LEASE}, and not held here, has lost its owner:
 * the process that held it is gone. Thread-safe.
 */
final class JobLeases implements AutoCloseable {
    private final MemoryStore store;
    private final Duration heartbeat;
    /** Job id to user id. */
    private final Map<String, String> held = new ConcurrentHashMap<>();
    private ScheduledExecutorService beat;
    private boolean beating;
    private boolean closed;

    JobLeases(MemoryStore store, Duration heartbeat) {
        this.store = store;
        this.heartbeat = heartbeat;
    }

    /** Holds the job until {@link #release}; the first hold starts the heartbeat. */
    synchronized void hold(Job job) {
        held.put(job.id(), job.userId());
        if (!beating) {
            beating = true;
            every(heartbeat, this::beat);
        }
    }

    /** Runs {@code task} every {@code period} on the heartbeat's thread until {@link #close}; a task that throws runs again. */
    synchronized void every(Duration period, Runnable task) {
        if (closed) {
            return;
        }
        if (beat == null) {
            beat = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("engram-job-heartbeat")
                    .factory());
        }
        beat.scheduleWithFixedDelay(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                // the next round tries again (a store that is closing, a job that ended meanwhile)
            }
        }, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    void release(String jobId) {
        held.remove(jobId);
    }

    boolean holds(String jobId) {
        return held.containsKey(jobId);
    }

    /** Whether the active job has lost its owner: not held here, and unchanged for longer than the lease. */
    boolean abandoned(Job job) {
        return !holds(job.id()) && job.updatedAt().isBefore(store.clock().instant().minus(MemoryManager.LEASE));
    }

    /** Touches every held job; one that ended or that the store cannot reach is left to its worker. */
    void beat() {
        held.forEach((id, user) -> {
            try {
                store.jobs().touch(user, id);
            } catch (RuntimeException e) {
                // ended meanwhile, or the store is closing: the worker reports what happened to the job
            }
        });
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (beat != null) {
            beat.shutdownNow();
        }
    }
}
