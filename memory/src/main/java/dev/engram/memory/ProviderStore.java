package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/**
 * The model providers an operator registered ({@link ProviderRecord}), with their credentials sealed. Backends keep
 * them through the optional provider methods of {@link dev.engram.memory.spi.Rows}; over a backend without them every
 * method here throws {@link UnsupportedOperationException}.
 */
public final class ProviderStore {
    private final StoreCore store;

    ProviderStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Registers a provider.
     *
     * @throws DuplicateException       if a provider of that name exists (nothing is stored)
     * @throws IllegalArgumentException if a field is blank, too long or has control characters
     */
    public ProviderRecord create(String name, String type, String baseUrl, String sealedApiKey) {
        return store.write(rows -> {
            if (rows.listProviders().stream().anyMatch(p -> p.name().equals(name))) {
                throw new DuplicateException("A provider named '" + name + "' exists; choose another name, or change it "
                        + "with PATCH.");
            }
            ProviderRecord p = new ProviderRecord(Ids.next("provider"), name, type, baseUrl, sealedApiKey, store.now(),
                    store.now());
            rows.putProvider(p);
            return p;
        });
    }

    public Optional<ProviderRecord> get(String id) {
        Checks.notNull(id, "provider id");
        return store.read(rows -> rows.provider(id));
    }

    /** Every provider, oldest first. */
    public List<ProviderRecord> list() {
        return store.read(rows -> rows.listProviders());
    }

    /**
     * Changes a provider's endpoint and sealed key.
     *
     * @throws NotFoundException if there is no provider of that id
     */
    public ProviderRecord update(String id, String baseUrl, String sealedApiKey) {
        return store.write(rows -> {
            ProviderRecord p = rows.provider(id).orElseThrow(() -> new NotFoundException("Provider '" + id + "' not found."));
            ProviderRecord changed = p.with(baseUrl, sealedApiKey, store.now());
            rows.putProvider(changed);
            return changed;
        });
    }

    /** Removes a provider; returns whether there was one. */
    public boolean delete(String id) {
        Checks.notNull(id, "provider id");
        return store.write(rows -> rows.deleteProvider(id));
    }
}
