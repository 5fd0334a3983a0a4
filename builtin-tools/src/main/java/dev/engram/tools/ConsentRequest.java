package dev.engram.tools;

import dev.engram.memory.Acl;
import dev.engram.memory.MemoryPermission;
import java.util.Objects;

/**
 * What consent is asked for, with where the request comes from.
 *
 * @param userId     the user the agent serves
 * @param agentId    the agent that wants to write
 * @param channel    the session the request comes from (empty if none)
 * @param label      the block
 * @param permission the block's permission for this agent (partner or human)
 * @param operation  append or overwrite
 * @param change     a description of the change, e.g. the text to append
 */
public record ConsentRequest(String userId, String agentId, String channel, String label, MemoryPermission permission,
        Acl.Operation operation, String change) {
    public ConsentRequest {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(permission, "permission");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(change, "change");
    }
}
