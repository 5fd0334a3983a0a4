package dev.engram.memory.spi;

import dev.engram.memory.Job;
import java.util.List;
import java.util.Optional;

/**
 * The background jobs of a {@link MemoryBackend}. Optional: the defaults throw.
 */
public interface JobRows {
    /** Stores a job, replacing the one of its id. Jobs are optional, like runs: the defaults throw. */
    default void putJob(Job job) {
        throw noJobs();
    }

    /** The job of that id, whoever's it is. */
    default Optional<Job> job(String id) {
        throw noJobs();
    }

    /** The user's jobs, newest first (by creation, then id), at most {@code limit}. */
    default List<Job> listJobs(String userId, int limit) {
        throw noJobs();
    }

    /** Removes a job; returns whether there was one. */
    default boolean deleteJob(String id) {
        throw noJobs();
    }

    /** Every user's active jobs (created or running), oldest first (by creation, then id). */
    default List<Job> unfinishedJobs() {
        throw noJobs();
    }

    private static UnsupportedOperationException noJobs() {
        return new UnsupportedOperationException("this memory backend keeps no jobs (it does not implement the job "
                + "methods of Rows)");
    }
}
