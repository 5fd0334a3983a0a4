package dev.engram.memory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The Engram server's API keys. A key is bound to one user (it sees that user's memory and nothing else) or is an
 * admin key. The key itself is shown once, when it is created, and stored only as its SHA-256 hash: keys are 256
 * random bits, so a fast hash is enough to make a stolen database useless for logging in (a password hash's
 * deliberate slowness protects guessable secrets, which these are not).
 *
 * <p>Backends keep keys through the optional key methods of {@link dev.engram.memory.spi.Rows}; over a backend
 * without them every method here throws {@link UnsupportedOperationException}.
 */
public final class KeyStore {
    /** What every key starts with, so that a leaked one is recognisable (e.g. by secret scanners). */
    public static final String PREFIX = "engram_";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final StoreCore store;

    KeyStore(StoreCore store) {
        this.store = store;
    }

    /** A key just created: its record and the key itself, which is not kept and cannot be shown again. */
    public record CreatedKey(ApiKey key, String secret) {
        @Override
        public String toString() {
            return "CreatedKey[" + key + "]"; // never the secret
        }
    }

    /**
     * Creates a key for {@code userId}, or an admin key when it is empty.
     *
     * @throws IllegalArgumentException if the user id or the name is not acceptable (a name may be empty)
     */
    public CreatedKey create(Optional<String> userId, String name) {
        Checks.notNull(userId, "user id");
        userId.ifPresent(u -> Checks.id(u, "user id"));
        Checks.notNull(name, "name");
        if (name.length() > Checks.MAX_ID_LENGTH) {
            throw new IllegalArgumentException("key name must be at most " + Checks.MAX_ID_LENGTH + " characters, got " + name.length());
        }
        byte[] random = new byte[32];
        RANDOM.nextBytes(random);
        String secret = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        ApiKey key = new ApiKey(Ids.next("key"), userId, name.strip(), store.now());
        store.write(rows -> {
            rows.insertKey(key, hash(secret));
            return null;
        });
        return new CreatedKey(key, secret);
    }

    /** The key a request presented, if it is one (an unknown, malformed or revoked key is empty). */
    public Optional<ApiKey> verify(String secret) {
        if (secret == null || !secret.startsWith(PREFIX) || secret.length() > 200) {
            return Optional.empty();
        }
        String hash = hash(secret);
        return store.read(rows -> rows.keyByHash(hash));
    }

    /** Every key, oldest first (their records; the keys themselves are not kept). */
    public List<ApiKey> list() {
        return store.read(rows -> rows.listKeys());
    }

    /** Revokes a key: requests with it are refused from now on. Returns whether there was one. */
    public boolean revoke(String id) {
        Checks.notNull(id, "key id");
        return store.write(rows -> rows.deleteKey(id));
    }

    static String hash(String secret) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }
}
