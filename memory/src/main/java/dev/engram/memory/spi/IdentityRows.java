package dev.engram.memory.spi;

import dev.engram.memory.Identity;
import java.util.List;
import java.util.Optional;

/**
 * The identities of a {@link MemoryBackend}: one per user. Optional: the defaults throw.
 */
public interface IdentityRows {
    /** Stores a user's identity, replacing the one the user had. Identities are optional, like keys: the defaults throw. */
    default void putIdentity(Identity identity) {
        throw noIdentities();
    }

    /** The user's identity. */
    default Optional<Identity> identity(String userId) {
        throw noIdentities();
    }

    /** Every identity, oldest first. */
    default List<Identity> listIdentities() {
        throw noIdentities();
    }

    /** Removes the user's identity; returns whether there was one. */
    default boolean deleteIdentity(String userId) {
        throw noIdentities();
    }

    private static UnsupportedOperationException noIdentities() {
        return new UnsupportedOperationException("this memory backend keeps no identities (it does not implement the "
                + "identity methods of Rows)");
    }
}
