package dev.engram.memory;

import dev.engram.memory.spi.JobRows;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The jobs of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one lock, and
 * record each change in its one undo log.
 */
interface InMemoryJobRows extends JobRows {
    /** Every job by id. */
    Map<String, Job> jobTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putJob(Job job) {
        undo().put(jobTable(), job.id(), job);
    }

    @Override
    default Optional<Job> job(String id) {
        return Optional.ofNullable(jobTable().get(id));
    }

    @Override
    default List<Job> listJobs(String userId, int limit) {
        return jobTable().values().stream().filter(j -> j.userId().equals(userId))
                .sorted(Comparator.comparing(Job::createdAt).thenComparing(Job::id).reversed()).limit(limit).toList();
    }

    @Override
    default boolean deleteJob(String id) {
        return undo().remove(jobTable(), id);
    }

    @Override
    default List<Job> unfinishedJobs() {
        return jobTable().values().stream().filter(j -> j.status().isActive())
                .sorted(Comparator.comparing(Job::createdAt).thenComparing(Job::id)).toList();
    }
}
