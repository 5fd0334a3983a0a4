package dev.engram.server;

import dev.engram.memory.ApiKey;
import dev.engram.memory.KeyStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys requests presented, verified against the {@link KeyStore} at most once per {@code ttl} each: a client
 * sending many requests costs one key lookup per interval instead of one per request. The price is that a key
 * revoked in the store (by this or another server) keeps working here for up to {@code ttl}. Only keys that
 * verified are remembered, so a wrong key is looked up every time; a zero {@code ttl} remembers nothing.
 */
final class VerifiedKeys {
    /** More distinct keys than this within one interval start the memory over (a bound, not a working size). */
    static final int MAX_REMEMBERED = 10_000;

    private record Verified(Caller caller, long until) {
    }

    private final KeyStore keys;
    private final long ttlNanos;
    private final ConcurrentHashMap<String, Verified> verified = new ConcurrentHashMap<>();

    VerifiedKeys(KeyStore keys, Duration ttl) {
        this.keys = keys;
        this.ttlNanos = ttl.toNanos();
    }

    /** The caller a key stands for, if the store knows the key (now, or within the last {@code ttl}). */
    Optional<Caller> verify(String secret) {
        long now = System.nanoTime();
        Verified v = verified.get(secret);
        if (v != null && now - v.until() < 0) {
            return Optional.of(v.caller());
        }
        Optional<ApiKey> key = keys.verify(secret);
        if (key.isEmpty()) {
            verified.remove(secret);
            return Optional.empty();
        }
        Caller caller = new Caller(key.get().id(), key.get().userId());
        if (ttlNanos > 0) {
            if (verified.size() >= MAX_REMEMBERED) {
                verified.clear();
            }
            verified.put(secret, new Verified(caller, now + ttlNanos));
        }
        return Optional.of(caller);
    }
}
