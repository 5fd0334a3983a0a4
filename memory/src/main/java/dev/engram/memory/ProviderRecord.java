package dev.engram.memory;

import java.time.Instant;

/**
 * A model provider an operator registered with the server (Letta's BYOK provider): its name, its kind, the endpoint it
 * is reached at and its credentials, which the store keeps only sealed (encrypted by the server with a key the store
 * never sees).
 *
 * @param id           {@code provider-<uuid>}
 * @param name         a name unique in the store
 * @param type         Letta's provider type ({@code openai}, {@code anthropic}, {@code google_ai}, {@code ollama})
 * @param baseUrl      the endpoint; empty for the provider's own
 * @param sealedApiKey the API key as the server sealed it (opaque to the store)
 * @param createdAt    when it was registered
 * @param updatedAt    when it was last changed
 */
public record ProviderRecord(String id, String name, String type, String baseUrl, String sealedApiKey, Instant createdAt,
        Instant updatedAt) {
    public ProviderRecord {
        Checks.id(id, "provider id");
        Checks.id(name, "provider name");
        Checks.id(type, "provider type");
        Checks.notNull(baseUrl, "base url");
        Checks.id(sealedApiKey, "sealed api key");
        Checks.notNull(createdAt, "createdAt");
        Checks.notNull(updatedAt, "updatedAt");
    }

    /** This provider with another endpoint and sealed key, changed at {@code at}. */
    public ProviderRecord with(String newBaseUrl, String newSealedApiKey, Instant at) {
        return new ProviderRecord(id, name, type, newBaseUrl, newSealedApiKey, createdAt, at);
    }
}
