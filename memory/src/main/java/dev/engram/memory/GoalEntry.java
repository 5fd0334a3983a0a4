package dev.engram.memory;

import java.time.Instant;
import java.util.Locale;

/**
 * A step recorded on a {@link Goal}: a checkpoint (progress made, where to pick up) or a decision (what was decided
 * and why).
 *
 * @param id        {@code gent-<uuid>}
 * @param goalId    the goal it belongs to
 * @param kind      checkpoint or decision
 * @param text      the checkpoint's progress, or the decision
 * @param rationale why the decision was taken; empty for a checkpoint or when none was given
 * @param createdAt when it was recorded (entries of a goal are read newest first)
 */
public record GoalEntry(String id, String goalId, Kind kind, String text, String rationale, Instant createdAt) {
    public GoalEntry {
        Checks.id(id, "goal entry id");
        Checks.id(goalId, "goal id");
        Checks.notNull(kind, "goal entry kind");
        Checks.unicode(text, "goal entry text");
        Checks.unicode(rationale, "goal entry rationale");
        Checks.notNull(createdAt, "createdAt");
    }

    /** What an entry records. */
    public enum Kind {
        /** Progress made towards the goal. */
        CHECKPOINT,
        /** A decision taken on the way, with its rationale. */
        DECISION;

        /** The lower-case name. */
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
