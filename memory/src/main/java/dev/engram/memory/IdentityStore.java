package dev.engram.memory;

import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

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
     * Stores the user's identity, or changes its name and type (its creation time and properties stay).
     *
     * @throws IllegalArgumentException if the user id, name or type is blank, too long or has control characters
     */
    public Identity put(String userId, String name, String type) {
        Checks.id(userId, "user id");
        Checks.id(name, "identity name");
        Checks.id(type, "identity type");
        return store.write(rows -> {
            Optional<Identity> old = rows.identity(userId);
            Identity identity = new Identity(userId, name, type, old.map(Identity::createdAt).orElse(store.now()),
                    old.map(Identity::properties).orElse("[]"));
            rows.putIdentity(identity);
            return identity;
        });
    }

    /**
     * Stores the user's identity with its name, type and properties in one write (its creation time stays when it
     * exists): what a client that sets an identity's fields and properties together asks, all or nothing.
     *
     * @throws IllegalArgumentException if the user id, name or type is blank, too long or has control characters, or the
     *                                  properties are longer than {@link Identity#MAX_PROPERTIES} or not text
     */
    public Identity put(String userId, String name, String type, String properties) {
        Checks.id(userId, "user id");
        Checks.id(name, "identity name");
        Checks.id(type, "identity type");
        Checks.notNull(properties, "properties");
        return store.write(rows -> {
            Optional<Identity> old = rows.identity(userId);
            Identity identity = new Identity(userId, name, type, old.map(Identity::createdAt).orElse(store.now()), properties);
            rows.putIdentity(identity);
            return identity;
        });
    }

    /**
     * Stores a new identity for the user, failing when the user has one: the check and the write are one write, so of
     * two clients creating the same identity at once exactly one succeeds.
     *
     * @throws DuplicateException       if the user already has an identity (nothing changes)
     * @throws IllegalArgumentException if the user id, name or type is blank, too long or has control characters, or the
     *                                  properties are longer than {@link Identity#MAX_PROPERTIES} or not text
     */
    public Identity create(String userId, String name, String type, String properties) {
        Checks.id(userId, "user id");
        Checks.id(name, "identity name");
        Checks.id(type, "identity type");
        Checks.notNull(properties, "properties");
        return store.write(rows -> {
            if (rows.identity(userId).isPresent()) {
                throw new DuplicateException("An identity for user '" + userId + "' exists; update it instead.");
            }
            Identity identity = new Identity(userId, name, type, store.now(), properties);
            rows.putIdentity(identity);
            return identity;
        });
    }

    /**
     * Changes the user's identity by a function of its current value, read and written in one write, so that two
     * changes at once (each merging into the properties, say) both land. The user id and creation time stay whatever
     * the function returns; an exception from the function changes nothing and reaches the caller.
     *
     * @throws NotFoundException        if the user has no identity
     * @throws IllegalArgumentException if the changed identity's properties are too long or not text
     */
    public Identity update(String userId, UnaryOperator<Identity> change) {
        Checks.notNull(userId, "user id");
        Checks.notNull(change, "change");
        return store.write(rows -> {
            Identity old = rows.identity(userId).orElseThrow(() -> new NotFoundException("Identity of user '" + userId
                    + "' not found."));
            Identity changed = change.apply(old);
            Identity identity = new Identity(userId, changed.name(), changed.type(), old.createdAt(), changed.properties());
            rows.putIdentity(identity);
            return identity;
        });
    }

    /**
     * Replaces the properties of the user's identity (see {@link Identity#properties()}).
     *
     * @throws NotFoundException        if the user has no identity
     * @throws IllegalArgumentException if the properties are longer than {@link Identity#MAX_PROPERTIES} or not text
     */
    public Identity putProperties(String userId, String properties) {
        Checks.notNull(userId, "user id");
        Checks.notNull(properties, "properties");
        return store.write(rows -> {
            Identity old = rows.identity(userId).orElseThrow(() -> new NotFoundException("Identity of user '" + userId
                    + "' not found."));
            Identity identity = new Identity(userId, old.name(), old.type(), old.createdAt(), properties);
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
