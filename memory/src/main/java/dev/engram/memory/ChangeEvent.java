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
 *
 * <p>Two kinds of event name nothing an index holds, only a change in what an agent sees: a block shared with an agent
 * or no longer shared is a {@code BLOCK} event of that agent (the block is the owner's, so the agent has no block of
 * its own to load), and an archive attached to an agent, detached from it or renamed, or a folder attached or detached,
 * is an {@code ARCHIVAL} event of the agent whose id is the archive's or folder's (no entry of the agent's own has it). A reader that keeps what an agent's prompt
 * shows between steps takes them as changes; an index loads nothing for them and drops nothing.
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
