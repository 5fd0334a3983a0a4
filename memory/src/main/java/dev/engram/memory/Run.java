package dev.engram.memory;

import java.time.Instant;
import java.util.Optional;

/**
 * One turn of an agent as a client sees it: Letta's run. Every request that starts or resumes a turn is a run until
 * the turn ends or pauses for an approval; a streamed run's events ({@link RunEvent}) are kept with it so that a
 * client whose stream broke can pick it up where it broke, also from another server on the same database.
 *
 * @param id             {@code run-<uuid>}
 * @param userId         the user whose agent runs it
 * @param agentId        the agent
 * @param conversationId the conversation it runs in: a conversation's id, or {@code default} (the agent's own history)
 * @param background     whether its client asked for it to go on without the client ({@code background: true});
 *                       only such runs keep their events
 * @param status         where it is
 * @param stopReason     why it stopped (Letta's stop reason, such as {@code end_turn}); empty while it runs
 * @param createdAt      when it started
 * @param updatedAt      when its server last wrote to it: while it runs, a run whose server is gone stops being updated
 * @param completedAt    when it ended; empty while it runs
 */
public record Run(String id, String userId, String agentId, String conversationId, boolean background, RunStatus status,
        String stopReason, Instant createdAt, Instant updatedAt, Optional<Instant> completedAt) {
    /** The prefix of a run's id. */
    public static final String ID_PREFIX = "run-";

    public Run {
        Checks.id(id, "run id");
        if (!id.startsWith(ID_PREFIX)) {
            throw new IllegalArgumentException("a run id starts with '" + ID_PREFIX + "', got '" + id + "'");
        }
        Checks.id(userId, "user id");
        Checks.id(agentId, "agent id");
        Checks.id(conversationId, "conversation id");
        Checks.notNull(status, "status");
        Checks.notNull(stopReason, "stop reason");
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
        Checks.notNull(completedAt, "completedAt");
        if (status.isActive() != completedAt.isEmpty()) {
            throw new IllegalArgumentException("a run has a completion time exactly when it has ended (status " + status
                    + ", completedAt " + completedAt + ")");
        }
    }

    /** The scope of its agent. */
    public Scope scope() {
        return Scope.of(userId, agentId);
    }
}
