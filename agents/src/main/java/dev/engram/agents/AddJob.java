package dev.engram.agents;

import dev.engram.memory.Job;
import dev.engram.memory.MemoryStore;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link MemoryManager#add} job the caller can look at and wait on. The job itself lives in the store
 * ({@link MemoryStore#jobs()}) from the moment {@code add} returned: this handle only follows it.
 */
public final class AddJob {
    private final String id;
    private final String userId;
    private final MemoryStore store;
    private final CompletableFuture<AddResult> done;

    AddJob(Job job, MemoryStore store, CompletableFuture<AddResult> done) {
        this.id = job.id();
        this.userId = job.userId();
        this.store = store;
        this.done = done;
    }

    /** The job's id ({@code job-…}): also what the server's {@code /v1/jobs/{job_id}} answers for. */
    public String id() {
        return id;
    }

    /** The job as stored now: its status, its attempts, and its result so far. */
    public Job job() {
        return store.jobs().get(userId, id).orElseThrow(() -> new IllegalStateException("job " + id + " is gone"));
    }

    /** What the job has done so far (its progress: {@code facts().size()} of {@code total()}). */
    public AddResult progress() {
        return MemoryManager.result(job());
    }

    /** Completes with the job's final result (completed or failed: a failed job completes normally, with its error). */
    public CompletableFuture<AddResult> future() {
        return done.copy();
    }

    /**
     * Waits for the job to end and returns its result; a failed job's result carries its error.
     *
     * @throws IllegalStateException if the wait was interrupted or timed out (the job goes on)
     */
    public AddResult await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        try {
            return done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for job " + id + "; it goes on", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("job " + id + " did not end within " + timeout + "; it goes on", e);
        } catch (ExecutionException | CancellationException e) {
            throw new IllegalStateException("job " + id + " broke: " + e.getMessage(), e);
        }
    }
}
