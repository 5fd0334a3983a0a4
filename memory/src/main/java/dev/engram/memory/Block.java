package dev.engram.memory;

import java.time.Instant;

/**
 * A labelled core-memory block as one agent sees it.
 *
 * @param label       unique per agent
 * @param description what the block is for, shown to the model
 * @param value       the text
 * @param limit       the most characters {@code value} may hold
 * @param type        core, working or archival
 * @param permission  this agent's permission: the block's own for its owner, the attachment's for
 *                    an agent it is shared with
 * @param pinned      whether the block stays in the prompt whatever the context pressure
 * @param version     increases by one with every committed change; for optimistic locking
 * @param ownerAgentId the agent that owns the block (another agent's id when it is shared with this one)
 * @param createdAt   when the block was created
 * @param updatedAt   when it last changed
 */
public record Block(String label, String description, String value, int limit, BlockType type,
        MemoryPermission permission, boolean pinned, long version, String ownerAgentId, Instant createdAt,
        Instant updatedAt) {
    public Block {
        Checks.id(label, "label");
        Checks.text(description, "description");
        Checks.text(value, "value");
        Checks.notNull(type, "type");
        Checks.notNull(permission, "permission");
        Checks.id(ownerAgentId, "owner agent id");
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
    }

    /** Characters used, as counted against the limit: Unicode code points, so an emoji counts as one. */
    public int size() {
        return Checks.size(value);
    }

    /** Whether this agent sees the block through an attachment rather than owning it. */
    public boolean isShared(Scope viewer) {
        return !ownerAgentId.equals(viewer.agentId());
    }
}
