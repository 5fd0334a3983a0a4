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
 * @param callId     the id of the tool call that wants to write (empty if the call has none), so that a broker asking
 *                   a client can show the request as about that call
 */
public record ConsentRequest(String userId, String agentId, String channel, String label, MemoryPermission permission,
        Acl.Operation operation, String change, String callId) {
    public ConsentRequest {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(permission, "permission");
        Objects.requireNonNull(operation, "operation");
        Objects.requireNonNull(change, "change");
        Objects.requireNonNull(callId, "callId");
    }
}
