package dev.engram.memory.spi;

import dev.engram.memory.ApiKey;
import java.util.List;
import java.util.Optional;

/**
 * The server's API keys in a {@link MemoryBackend}, each stored by the hash of the key. Optional: the defaults throw.
 */
public interface KeyRows {
    /** Stores a key's record with the hash of the key. Keys are optional, like schedules: the four defaults throw. */
    default void insertKey(ApiKey key, String hash) {
        throw noKeys();
    }

    /** The key whose hash is {@code hash}. */
    default Optional<ApiKey> keyByHash(String hash) {
        throw noKeys();
    }

    /** Every key, oldest first. */
    default List<ApiKey> listKeys() {
        throw noKeys();
    }

    /** Removes a key; returns whether there was one. */
    default boolean deleteKey(String id) {
        throw noKeys();
    }

    private static UnsupportedOperationException noKeys() {
        return new UnsupportedOperationException("this memory backend keeps no API keys (it does not implement the key "
                + "methods of Rows)");
    }
}
