package dev.engram.memory;

import java.time.Instant;
import java.util.Optional;

/**
 * A goal an agent works towards over many turns ({@link WorkStateStore}): at most one of an agent's goals is its
 * current one, shown in its prompt with its latest checkpoints and decisions ({@link GoalEntry}).
 *
 * @param id          {@code goal-<uuid>}
 * @param userId      the user whose agent it is
 * @param agentId     the agent whose goal it is
 * @param title       what the goal is, in a line
 * @param description more about it; empty when none was given
 * @param completed   whether the agent has completed it
 * @param current     whether it is the agent's current goal (never a completed one)
 * @param outcome     how it ended, as the agent said when completing it; empty while it is open
 * @param createdAt   when it was created
 * @param updatedAt   when it last changed (created, switched to or from, completed)
 * @param completedAt when it was completed; empty while it is open
 */
public record Goal(String id, String userId, String agentId, String title, String description, boolean completed,
        boolean current, String outcome, Instant createdAt, Instant updatedAt, Optional<Instant> completedAt) {
    public Goal {
        Checks.id(id, "goal id");
        Checks.id(userId, "user id");
        Checks.id(agentId, "agent id");
        Checks.unicode(title, "goal title");
        Checks.unicode(description, "goal description");
        Checks.unicode(outcome, "goal outcome");
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
        Checks.notNull(completedAt, "completedAt");
        if (completed && current) {
            throw new IllegalArgumentException("a completed goal cannot be the current one");
        }
    }

    /** The scope of the agent whose goal it is. */
    public Scope scope() {
        return Scope.of(userId, agentId);
    }

    /** This goal, current or not, changed at {@code now}. */
    Goal withCurrent(boolean isCurrent, Instant now) {
        return new Goal(id, userId, agentId, title, description, completed, isCurrent, outcome, createdAt, now, completedAt);
    }
}
