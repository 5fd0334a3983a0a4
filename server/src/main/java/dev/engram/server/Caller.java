package dev.engram.server;

import java.util.Optional;

/**
 * Who sent a request: the user its key is bound to, or an admin key ({@code user} empty), which acts for
 * every user.
 *
 * @param keyId the key's id, for the log
 * @param user  the user the key is bound to; empty for an admin key
 */
record Caller(String keyId, Optional<String> user) {
    boolean admin() {
        return user.isEmpty();
    }

    /** Whether the caller may see what belongs to {@code userId}. */
    boolean sees(String userId) {
        return user.map(userId::equals).orElse(true);
    }
}
