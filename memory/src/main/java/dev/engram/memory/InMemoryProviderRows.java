package dev.engram.memory;

import dev.engram.memory.spi.ProviderRows;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The model providers of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one
 * lock, and record each change in its one undo log.
 */
interface InMemoryProviderRows extends ProviderRows {
    /** Every provider by id. */
    Map<String, ProviderRecord> providerTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putProvider(ProviderRecord provider) {
        undo().put(providerTable(), provider.id(), provider);
    }

    @Override
    default Optional<ProviderRecord> provider(String id) {
        return Optional.ofNullable(providerTable().get(id));
    }

    @Override
    default List<ProviderRecord> listProviders() {
        return providerTable().values().stream().sorted(Comparator.comparing(ProviderRecord::createdAt)
                .thenComparing(ProviderRecord::id)).toList();
    }

    @Override
    default boolean deleteProvider(String id) {
        return undo().remove(providerTable(), id);
    }
}
