package dev.engram.memory.spi;

import dev.engram.memory.ChangeEvent;
import java.util.Objects;
import java.util.Optional;

/**
 * A change-log event to append; the backend gives it the next sequence number.
 *
 * @param entity  what changed
 * @param id      its id (block label, archival or note id, message id as text)
 * @param op      upserted or deleted
 * @param userId  the owning user
 * @param agentId the owning agent; empty for notes; the folder for a file's passage
 */
public record NewChange(ChangeEvent.Entity entity, String id, ChangeEvent.Op op, String userId, Optional<String> agentId) {
    public NewChange {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(agentId, "agentId");
    }

    /** The event with its sequence number, as {@link Rows#changesSince} returns it. */
    public ChangeEvent withSeq(long seq) {
        return new ChangeEvent(seq, entity, id, op, userId, agentId);
    }
}
