package dev.engram.memory;

/**
 * Whose memory an operation touches: one agent of one user. Every read and write of blocks,
 * archival entries and messages takes a scope, and no operation can widen it.
 *
 * @param userId  the user; non-blank
 * @param agentId the agent; non-blank
 */
public record Scope(String userId, String agentId) {
    public Scope {
        userId = Checks.id(userId, "user id");
        agentId = Checks.id(agentId, "agent id");
    }

    public static Scope of(String userId, String agentId) {
        return new Scope(userId, agentId);
    }

    @Override
    public String toString() {
        return userId + "/" + agentId;
    }
}
