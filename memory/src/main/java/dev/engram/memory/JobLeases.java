package dev.engram.memory;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The background jobs one worker of a process holds (accepted or resumed, and not yet ended), kept alive in the store
 * while it holds them: every heartbeat each one is {@linkplain JobStore#touch touched}. A job that is active but
 * unchanged for longer than the lease, and not held here, has lost its owner: the process that held it is gone, and
 * another process sharing the store may take it up. Workers that run jobs in the background (memory extraction, folder
 * uploads) use one each. Thread-safe.
 */
public final class JobLeases implements AutoCloseable {
    /** How often a holder marks the jobs it holds as alive, by default. */
    public static final Duration HEARTBEAT = Duration.ofSeconds(15);
    /** An active job unchanged for longer than this has lost its owner: four heartbeats, so a busy process keeps its jobs. */
    public static final Duration LEASE = HEARTBEAT.multipliedBy(4);

    private final MemoryStore store;
    private final Duration heartbeat;
    private final Duration lease;
    /** Job id to user id. */
    private final Map<String, String> held = new ConcurrentHashMap<>();
    private ScheduledExecutorService beat;
    private boolean beating;
    private boolean closed;

    private JobLeases(MemoryStore store, Duration heartbeat, Duration lease) {
        this.store = Objects.requireNonNull(store, "store must not be null");
        this.heartbeat = positive(heartbeat, "heartbeat");
        this.lease = positive(lease, "lease");
        if (lease.compareTo(heartbeat) <= 0) {
            throw new IllegalArgumentException("the lease (" + lease + ") must be longer than the heartbeat (" + heartbeat
                    + "), or a live holder's jobs would look abandoned");
        }
    }

    /** Leases on {@code store}'s jobs with the default {@link #HEARTBEAT} and {@link #LEASE}. */
    public static JobLeases on(MemoryStore store) {
        return new JobLeases(store, HEARTBEAT, LEASE);
    }

    /**
     * Leases on {@code store}'s jobs, touched every {@code heartbeat}, abandoned after {@code lease} untouched.
     *
     * @throws IllegalArgumentException if either is not positive, or the lease is not longer than the heartbeat
     */
    public static JobLeases on(MemoryStore store, Duration heartbeat, Duration lease) {
        return new JobLeases(store, heartbeat, lease);
    }

    private static Duration positive(Duration d, String what) {
        Objects.requireNonNull(d, what + " must not be null");
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("the " + what + " must be positive, got " + d);
        }
        return d;
    }

    /** The lease: how long an active job may stay untouched before it counts as abandoned. */
    public Duration lease() {
        return lease;
    }

    /** Holds the job until {@link #release}; the first hold starts the heartbeat. */
    public synchronized void hold(Job job) {
        held.put(job.id(), job.userId());
        if (!beating) {
            beating = true;
            every(heartbeat, this::beat);
        }
    }

    /** Runs {@code task} every {@code period} on the heartbeat's thread until {@link #close}; a task that throws runs again. */
    public synchronized void every(Duration period, Runnable task) {
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

    /** Stops holding the job (it ended, or its worker gave it up). */
    public void release(String jobId) {
        held.remove(jobId);
    }

    /** Whether this holder holds the job. */
    public boolean holds(String jobId) {
        return held.containsKey(jobId);
    }

    /** Whether the active job has lost its owner: not held here, and unchanged for longer than the lease. */
    public boolean abandoned(Job job) {
        return !holds(job.id()) && job.updatedAt().isBefore(store.clock().instant().minus(lease));
    }

    /** Touches every held job; one that ended or that the store cannot reach is left to its worker. */
    public void beat() {
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
