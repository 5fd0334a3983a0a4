package dev.engram.memory;

import java.time.Instant;

/**
 * A user as the server's clients name it (Letta's identity): the user's id with a display name and a kind.
 *
 * @param userId    the user, which is the identity's key
 * @param name      a display name
 * @param type      what it is: Letta's {@code identity_type}, {@code user}, {@code org} or {@code other}
 * @param createdAt  when it was first stored
 * @param properties what the server's clients keep about it (Letta's identity properties): a JSON array, as the server
 *                   stored it ({@code []} when there are none); the store keeps it as given
 */
public record Identity(String userId, String name, String type, Instant createdAt, String properties) {
    /** The most characters an identity's properties may hold. */
    public static final int MAX_PROPERTIES = 100_000;

    public Identity {
        Checks.id(userId, "user id");
        Checks.id(name, "identity name");
        Checks.id(type, "identity type");
        Checks.notNull(createdAt, "createdAt");
        Checks.unicode(properties, "identity properties");
        if (properties.length() > MAX_PROPERTIES) {
            throw new IllegalArgumentException("an identity's properties hold at most " + MAX_PROPERTIES + " characters, not "
                    + properties.length());
        }
    }

    /** An identity without properties. */
    public Identity(String userId, String name, String type, Instant createdAt) {
        this(userId, name, type, createdAt, "[]");
    }
}
