package dev.engram.memory;

import dev.engram.memory.spi.IdentityRows;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The identities of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one lock,
 * and record each change in its one undo log.
 */
interface InMemoryIdentityRows extends IdentityRows {
    /** Every identity by its user id. */
    Map<String, Identity> identityTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putIdentity(Identity identity) {
        undo().put(identityTable(), identity.userId(), identity);
    }

    @Override
    default Optional<Identity> identity(String userId) {
        return Optional.ofNullable(identityTable().get(userId));
    }

    @Override
    default List<Identity> listIdentities() {
        return identityTable().values().stream().sorted(Comparator.comparing(Identity::createdAt)
                .thenComparing(Identity::userId)).toList();
    }

    @Override
    default boolean deleteIdentity(String userId) {
        return undo().remove(identityTable(), userId);
    }
}
