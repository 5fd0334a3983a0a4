package dev.engram.memory.spi;

import dev.engram.memory.ProviderRecord;
import java.util.List;
import java.util.Optional;

/**
 * The model providers an operator registered, in a {@link MemoryBackend}. Optional: the defaults throw.
 */
public interface ProviderRows {
    /** Stores a provider, replacing the one of its id. Providers are optional, like identities: the defaults throw. */
    default void putProvider(ProviderRecord provider) {
        throw noProviders();
    }

    /** The provider of that id. */
    default Optional<ProviderRecord> provider(String id) {
        throw noProviders();
    }

    /** Every provider, oldest first. */
    default List<ProviderRecord> listProviders() {
        throw noProviders();
    }

    /** Removes a provider; returns whether there was one. */
    default boolean deleteProvider(String id) {
        throw noProviders();
    }

    private static UnsupportedOperationException noProviders() {
        return new UnsupportedOperationException("this memory backend keeps no model providers (it does not implement the "
                + "provider methods of Rows)");
    }
}
