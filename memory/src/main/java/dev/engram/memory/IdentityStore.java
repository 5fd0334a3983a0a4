package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/**
 * The server's identities: a display name and kind for a user. Backends keep them through the optional
 * identity methods of {@link dev.engram.memory.spi.Rows}; over a backend without them every method here
 * throws {@link UnsupportedOperationException}. Deleting an identity deletes no memory: the user's agents
 * and memory stay under the user's id.
 */
public final class IdentityStore {
    private final StoreCore store;

    IdentityStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Stores the user's identity, or changes its name and type (its creation time stays).
     *
     * @throws IllegalArgumentException if the user id, name or type is blank, too long or has control characters
     */
    public Identity put(String userId, String name, String type) {
        Checks.id(userId, "user id");
        Checks.id(name, "identity name");
        Checks.id(type, "identity type");
        return store.write(rows -> {
            Identity identity = new Identity(userId, name, type,
                    rows.identity(userId).map(Identity::createdAt).orElse(store.now()));
            rows.putIdentity(identity);
            return identity;
        });
    }

    public Optional<Identity> get(String userId) {
        Checks.notNull(userId, "user id");
        return store.read(rows -> rows.identity(userId));
    }

    /** Every identity, oldest first. */
    public List<Identity> list() {
        return store.read(rows -> rows.listIdentities());
    }

    /** Removes the user's identity (not the user's memory); returns whether there was one. */
    public boolean delete(String userId) {
        Checks.notNull(userId, "user id");
        return store.write(rows -> rows.deleteIdentity(userId));
    }
}
