package dev.engram.memory;

import dev.engram.memory.spi.KeyRows;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The API keys of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one lock,
 * and record each change in its one undo log.
 */
interface InMemoryKeyRows extends KeyRows {
    /** Every key by its hash. */
    Map<String, ApiKey> keyTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void insertKey(ApiKey key, String hash) {
        undo().put(keyTable(), hash, key);
    }

    @Override
    default Optional<ApiKey> keyByHash(String hash) {
        return Optional.ofNullable(keyTable().get(hash));
    }

    @Override
    default List<ApiKey> listKeys() {
        return List.copyOf(keyTable().values());
    }

    @Override
    default boolean deleteKey(String id) {
        return keyTable().entrySet().stream().filter(e -> e.getValue().id().equals(id)).map(Map.Entry::getKey).findFirst()
                .map(hash -> undo().remove(keyTable(), hash)).orElse(false);
    }
}
