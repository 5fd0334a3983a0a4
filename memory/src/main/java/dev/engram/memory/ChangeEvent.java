package dev.engram.memory;

import java.util.Optional;

/**
 * One committed change, in the store's change log. A derived index applies these in {@code seq}
 * order and fetches the current content through the (scoped) store.
 *
 * @param seq      strictly increasing, without reuse
 * @param entity   what changed
 * @param id       its id: the block label, the archival or note id, the message id as text
 * @param op       upserted or deleted
 * @param userId   the owning user
 * @param agentId  the owning agent; empty for notes, which belong to the user; the folder for a file's passage
 */
public record ChangeEvent(long seq, Entity entity, String id, Op op, String userId, Optional<String> agentId) {
    /** The kinds of stored things. */
    public enum Entity {
        BLOCK, ARCHIVAL, NOTE, MESSAGE,
        /** A passage of an uploaded file: its {@code agentId} holds the file's folder. */
        PASSAGE
    }

    /** What happened. */
    public enum Op {
        UPSERT, DELETE
    }
}
