package dev.engram.memory;

import java.time.Instant;
import java.util.Optional;

/**
 * An API key of the Engram server, as stored: never the key itself, only its hash (see {@link KeyStore}).
 *
 * @param id        {@code key-<uuid>}, which names the key in lists and revocations
 * @param userId    the user (identity) the key acts as; empty for an admin key
 * @param name      what the key is for, as its creator described it
 * @param createdAt when it was created
 */
public record ApiKey(String id, Optional<String> userId, String name, Instant createdAt) {
    public ApiKey {
        Checks.id(id, "id");
        Checks.notNull(userId, "userId");
        userId.ifPresent(u -> Checks.id(u, "user id"));
        Checks.notNull(name, "name");
        Checks.notNull(createdAt, "createdAt");
    }

    /** Whether it is an admin key, bound to no user. */
    public boolean admin() {
        return userId.isEmpty();
    }
}
