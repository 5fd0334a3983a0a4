package dev.engram.memory;

import java.time.Instant;
import java.util.Optional;

/**
 * A piece of background work a user asked for (Letta's job), kept with its input from the moment it is accepted, so
 * that work a crash interrupted is found again at the next start ({@link JobStore#unfinished()}) and never silently
 * lost.
 *
 * @param id          {@code job-<uuid>}
 * @param userId      the user who asked for it and may read it
 * @param agentId     the agent it works for; empty for a job of the user's own (such as extracting notes)
 * @param kind        what it does, such as {@code memory_add}; the code that runs it reads its input
 * @param status      where it is
 * @param input       what it works on, as its kind defines it (JSON)
 * @param result      what it has done so far, then in the end (JSON, {@code {}} before it starts)
 * @param error       why it failed; empty unless it failed
 * @param attempts    how many times it was started (a job resumed after a crash starts again)
 * @param createdAt   when it was accepted
 * @param updatedAt   when it last changed
 * @param completedAt when it completed or failed; empty while it is active
 */
public record Job(String id, String userId, Optional<String> agentId, String kind, JobStatus status, String input,
        String result, String error, int attempts, Instant createdAt, Instant updatedAt, Optional<Instant> completedAt) {
    /** The prefix of a job's id. */
    public static final String ID_PREFIX = "job-";

    public Job {
        Checks.id(id, "job id");
        if (!id.startsWith(ID_PREFIX)) {
            throw new IllegalArgumentException("a job id starts with '" + ID_PREFIX + "', got '" + id + "'");
        }
        Checks.id(userId, "user id");
        Checks.notNull(agentId, "agent id");
        agentId.ifPresent(a -> Checks.id(a, "agent id"));
        Checks.id(kind, "job kind");
        Checks.notNull(status, "status");
        Checks.unicode(input, "job input");
        Checks.unicode(result, "job result");
        Checks.unicode(error, "job error");
        if (attempts < 0) {
            throw new IllegalArgumentException("a job's attempts cannot be negative, got " + attempts);
        }
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
        Checks.notNull(completedAt, "completedAt");
        if (status.isActive() != completedAt.isEmpty()) {
            throw new IllegalArgumentException("a job has a completion time exactly when it has ended (status " + status
                    + ", completedAt " + completedAt + ")");
        }
    }

    /** The scope of its agent, if it works for one. */
    public Optional<Scope> scope() {
        return agentId.map(a -> Scope.of(userId, a));
    }
}
