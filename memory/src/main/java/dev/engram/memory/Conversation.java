package dev.engram.memory;

import java.time.Instant;

/**
 * One of several conversations with an agent over the same memory (Letta's conversation): the agent's blocks and
 * archival memory are shared, while the conversation's messages are those stored under its id as their session id,
 * and its context window holds only those. The agent's own history (Letta's {@code default} conversation) is every
 * other session's.
 *
 * @param id        {@code conv-<uuid>}, which is also the session id of its messages
 * @param userId    the user who owns it (and the agent)
 * @param agentId   the agent it talks to
 * @param summary   what it is about, as its client describes it; empty when none was given
 * @param createdAt when it was created
 * @param updatedAt when it was last changed
 * @param metadata  the client's (or the agent's, through {@code sessions_patch}) own fields about it; empty when none
 */
public record Conversation(String id, String userId, String agentId, String summary, Instant createdAt, Instant updatedAt,
        Metadata metadata) {
    /** The prefix of a conversation's id, and of the session ids whose messages belong to a conversation. */
    public static final String ID_PREFIX = "conv-";

    public Conversation {
        Checks.id(id, "conversation id");
        if (!id.startsWith(ID_PREFIX)) {
            throw new IllegalArgumentException("a conversation id starts with '" + ID_PREFIX + "', got '" + id + "'");
        }
        Checks.id(userId, "user id");
        Checks.id(agentId, "agent id");
        Checks.unicode(summary, "conversation summary");
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
        Checks.notNull(metadata, "metadata");
    }

    /** A conversation without metadata. */
    public Conversation(String id, String userId, String agentId, String summary, Instant createdAt, Instant updatedAt) {
        this(id, userId, agentId, summary, createdAt, updatedAt, Metadata.empty());
    }

    /** The scope of the agent it talks to. */
    public Scope scope() {
        return Scope.of(userId, agentId);
    }

    /** Whether a message of session {@code sessionId} belongs to a conversation rather than to its agent's own history. */
    public static boolean isConversationSession(String sessionId) {
        return sessionId.startsWith(ID_PREFIX);
    }
}
