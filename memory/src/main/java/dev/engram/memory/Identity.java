package dev.engram.memory;

import java.time.Instant;

/**
 * A user as the server's clients name it (Letta's identity): the user's id with a display name and a kind.
 *
 * @param userId    the user, which is the identity's key
 * @param name      a display name
 * @param type      what it is: Letta's {@code identity_type}, {@code user}, {@code org} or {@code other}
 * @param createdAt when it was first stored
 */
public record Identity(String userId, String name, String type, Instant createdAt) {
    public Identity {
        Checks.id(userId, "user id");
        Checks.id(name, "identity name");
        Checks.id(type, "identity type");
        Checks.notNull(createdAt, "createdAt");
    }
}
