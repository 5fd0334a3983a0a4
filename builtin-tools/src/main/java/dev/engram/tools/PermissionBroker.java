package dev.engram.tools;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Asks for consent before an agent writes a block whose permission is {@code partner} or
 * {@code human}. Answer asynchronously; the block tool waits up to its consent timeout, and a
 * denial, a timeout or a failure changes nothing.
 */
@FunctionalInterface
public interface PermissionBroker {
    CompletionStage<Boolean> requestConsent(ConsentRequest request);

    /** Refuses every request: the safe default when no one can be asked. */
    static PermissionBroker denyAll() {
        return request -> CompletableFuture.completedFuture(false);
    }

    /** Grants every request (tests, trusted single-user setups). */
    static PermissionBroker allowAll() {
        return request -> CompletableFuture.completedFuture(true);
    }
}
