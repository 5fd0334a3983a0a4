package dev.engram.agents;

import dev.engram.memory.MemoryPermission;
import java.util.Objects;

/**
 * A block of another agent (of the same user) that an agent is given when it is created, with the
 * permission this agent has on it. Edits by either agent are in the other's next prompt.
 *
 * @param ownerAgentId the agent that owns the block
 * @param label        the block's label
 * @param permission   what the new agent may do with it
 */
public record BlockAttachment(String ownerAgentId, String label, MemoryPermission permission) {
    public BlockAttachment {
        if (ownerAgentId == null || !ownerAgentId.matches("[A-Za-z0-9_-]{1,100}")) {
            throw new IllegalArgumentException("the owner of a shared block must be an agent id (letters, digits, '-' and '_'), got '"
                    + ownerAgentId + "'");
        }
        if (label == null || label.isBlank()) {
            throw new IllegalArgumentException("a shared block needs a label");
        }
        Objects.requireNonNull(permission, "permission");
    }
}
