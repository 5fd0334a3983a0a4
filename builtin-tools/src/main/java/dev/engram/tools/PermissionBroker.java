package dev.engram.tools;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Asks for consent before an agent writes a block whose permission is {@code partner} or
 * {@code human}. Answer asynchronously; the block tool waits up to its consent timeout, and a
 * denial, a timeout or a failure changes nothing. A broker that cannot ask anyone completes the stage
 * exceptionally ({@link #cannotAsk}) with a message saying why: the tool's error then gives that reason.
 */
@FunctionalInterface
public interface PermissionBroker {
    CompletionStage<Boolean> requestConsent(ConsentRequest request);

    /**
     * Whether this broker answers every request at once, without waiting for anyone (as {@link #denyAll()} does): a
     * tool that asks it can then run on the caller's thread inside the caller's transaction, since asking never waits
     * for a person whose answer needs the store. False unless a broker says otherwise.
     */
    default boolean answersAtOnce() {
        return false;
    }

    /** Refuses every request: the safe default when no one can be asked. */
    static PermissionBroker denyAll() {
        return new PermissionBroker() {
            @Override
            public CompletionStage<Boolean> requestConsent(ConsentRequest request) {
                return CompletableFuture.completedFuture(false);
            }

            @Override
            public boolean answersAtOnce() {
                return true;
            }
        };
    }

    /**
     * The answer of a broker that cannot ask anyone about this request: a failed stage whose exception's message is
     * {@code reason} (e.g. "the client does not support elicitation"), which the refused call reports.
     */
    static CompletionStage<Boolean> cannotAsk(String reason) {
        return CompletableFuture.failedFuture(new ConsentUnavailableException(reason));
    }

    /** Why a {@link PermissionBroker} could not ask anyone for consent (see {@link #cannotAsk}). */
    final class ConsentUnavailableException extends RuntimeException {
        ConsentUnavailableException(String reason) {
            super(reason);
        }
    }

    /** Grants every request (tests, trusted single-user setups). */
    static PermissionBroker allowAll() {
        return request -> CompletableFuture.completedFuture(true);
    }
}
