package dev.engram.tools;

/**
 * Delivers what an agent says with {@code send_message}: to its user, or to another agent of the same
 * user. The agent runtime implements it; a refusal (unknown agent, another user's agent, a depth
 * limit) is a {@link dev.engram.framework.ToolException} whose message the model reads.
 */
@FunctionalInterface
public interface MessageRouter {
    void deliver(OutgoingMessage message);
}
