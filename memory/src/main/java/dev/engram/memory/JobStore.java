package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/**
 * Background jobs of each user ({@link Job}), kept from the moment they are accepted to their end and after: a job is
 * stored with its input before its caller learns its id, so a job a crash interrupted is still here at the next start
 * ({@link #unfinished()}) to be resumed or failed. Backends keep them through the optional job methods of
 * {@link dev.engram.memory.spi.Rows}; over a backend without them every method here throws
 * {@link UnsupportedOperationException}. A job is read and changed as its user's: another user's job is not there.
 */
public final class JobStore {
    /** The most characters a job's input or result may hold. */
    public static final int MAX_TEXT = 4_000_000;
    /** The most jobs listed at once. */
    public static final int MAX_LIST = 1_000;

    private final StoreCore store;

    JobStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Accepts a job of the scope's agent, {@link JobStatus#CREATED}; it is durable when this returns.
     *
     * @throws IllegalArgumentException if the kind is blank or the input is not valid text of at most {@link #MAX_TEXT}
     *                                  characters (nothing is stored)
     */
    public Job create(Scope scope, String kind, String input) {
        Checks.notNull(scope, "scope");
        return create(scope.userId(), Optional.of(scope.agentId()), kind, input);
    }

    /** Accepts a job of the user's own (no agent), as {@link #create(Scope, String, String)}. */
    public Job create(String userId, String kind, String input) {
        return create(userId, Optional.empty(), kind, input);
    }

    private Job create(String userId, Optional<String> agentId, String kind, String input) {
        Checks.id(userId, "user id");
        checkSize(input, "job input");
        return store.write(rows -> {
            var now = store.now();
            Job job = new Job(Ids.next("job"), userId, agentId, kind, JobStatus.CREATED, input, "{}", "", 0, now, now,
                    Optional.empty());
            rows.putJob(job);
            return job;
        });
    }

    /** The user's job of that id. */
    public Optional<Job> get(String userId, String id) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "job id");
        return store.read(rows -> rows.job(id)).filter(j -> j.userId().equals(userId));
    }

    /** The user's jobs, newest first, at most {@code limit} (1 to {@link #MAX_LIST}). */
    public List<Job> list(String userId, int limit) {
        Checks.id(userId, "user id");
        if (limit < 1 || limit > MAX_LIST) {
            throw new IllegalArgumentException("list 1 to " + MAX_LIST + " jobs at once, not " + limit);
        }
        return store.read(rows -> rows.listJobs(userId, limit));
    }

    /** Every user's jobs that were accepted or started and have not ended, oldest first: the work to resume at a start. */
    public List<Job> unfinished() {
        return store.read(rows -> rows.unfinishedJobs());
    }

    /**
     * Marks the user's active job {@link JobStatus#RUNNING} and counts one more attempt.
     *
     * @throws NotFoundException        if the user has no job of that id
     * @throws IllegalArgumentException if the job has ended
     */
    public Job start(String userId, String id) {
        return store.write(rows -> {
            Job job = active(rows.job(id), userId, id);
            Job started = new Job(job.id(), job.userId(), job.agentId(), job.kind(), JobStatus.RUNNING, job.input(),
                    job.result(), "", job.attempts() + 1, job.createdAt(), store.now(), Optional.empty());
            rows.putJob(started);
            return started;
        });
    }

    /**
     * Records what the user's running job has done so far.
     *
     * @throws NotFoundException        if the user has no job of that id
     * @throws IllegalArgumentException if the job has ended, or the result is too large
     */
    public Job progress(String userId, String id, String result) {
        checkSize(result, "job result");
        return store.write(rows -> {
            Job job = active(rows.job(id), userId, id);
            Job updated = new Job(job.id(), job.userId(), job.agentId(), job.kind(), job.status(), job.input(), result,
                    "", job.attempts(), job.createdAt(), store.now(), Optional.empty());
            rows.putJob(updated);
            return updated;
        });
    }

    /**
     * Marks the user's active job as alive now (its {@link Job#updatedAt()}), changing nothing else: the heartbeat of the
     * process that holds it, so that another process can tell a job whose owner is gone (unchanged for long) from one
     * that is still running.
     *
     * @throws NotFoundException        if the user has no job of that id
     * @throws IllegalArgumentException if the job has ended
     */
    public Job touch(String userId, String id) {
        return store.write(rows -> {
            Job job = active(rows.job(id), userId, id);
            Job touched = new Job(job.id(), job.userId(), job.agentId(), job.kind(), job.status(), job.input(), job.result(),
                    job.error(), job.attempts(), job.createdAt(), store.now(), Optional.empty());
            rows.putJob(touched);
            return touched;
        });
    }

    /**
     * Ends the user's job: {@link JobStatus#COMPLETED} with its result, or {@link JobStatus#FAILED} with its result so far
     * and a non-blank error. A job that has ended stays as it ended.
     *
     * @throws NotFoundException        if the user has no job of that id
     * @throws IllegalArgumentException if the status is not final, or a failure has no error
     */
    public Job finish(String userId, String id, JobStatus status, String result, String error) {
        Checks.notNull(status, "status");
        checkSize(result, "job result");
        Checks.unicode(error, "job error");
        if (status.isActive()) {
            throw new IllegalArgumentException("a job ends completed or failed, not " + status.wire());
        }
        if (status == JobStatus.FAILED && error.isBlank()) {
            throw new IllegalArgumentException("a failed job needs an error saying why it failed");
        }
        return store.write(rows -> {
            Job job = own(rows.job(id), userId, id);
            if (!job.status().isActive()) {
                return job;
            }
            var now = store.now();
            Job ended = new Job(job.id(), job.userId(), job.agentId(), job.kind(), status, job.input(), result,
                    status == JobStatus.FAILED ? error : "", job.attempts(), job.createdAt(), now, Optional.of(now));
            rows.putJob(ended);
            return ended;
        });
    }

    /**
     * Cancels the user's active job: {@link JobStatus#CANCELLED}, its result so far kept. The process working on it
     * notices at its next write of progress, which fails, so it stores nothing more.
     *
     * @throws NotFoundException        if the user has no job of that id
     * @throws IllegalArgumentException if the job has ended (it stays as it ended)
     */
    public Job cancel(String userId, String id) {
        return store.write(rows -> {
            Job job = active(rows.job(id), userId, id);
            var now = store.now();
            Job cancelled = new Job(job.id(), job.userId(), job.agentId(), job.kind(), JobStatus.CANCELLED, job.input(),
                    job.result(), "", job.attempts(), job.createdAt(), now, Optional.of(now));
            rows.putJob(cancelled);
            return cancelled;
        });
    }

    /**
     * Removes the user's job (a running one stops storing at its next write of progress, which fails).
     *
     * @throws NotFoundException if the user has no job of that id
     */
    public void delete(String userId, String id) {
        store.write(rows -> {
            own(rows.job(id), userId, id);
            return rows.deleteJob(id);
        });
    }

    private static void checkSize(String text, String what) {
        Checks.unicode(text, what);
        if (text.length() > MAX_TEXT) {
            throw new IllegalArgumentException(what + " holds " + text.length() + " characters; the most is " + MAX_TEXT);
        }
    }

    private static Job own(Optional<Job> job, String userId, String id) {
        return job.filter(j -> j.userId().equals(userId))
                .orElseThrow(() -> new NotFoundException("Job '" + id + "' not found."));
    }

    private static Job active(Optional<Job> job, String userId, String id) {
        Job own = own(job, userId, id);
        if (!own.status().isActive()) {
            throw new IllegalArgumentException("job '" + id + "' has ended (" + own.status().wire() + "); it cannot run again");
        }
        return own;
    }
}
