package dev.engram.server;

import dev.engram.memory.StorageFullException;
import dev.engram.memory.StorageUnavailableException;
import io.helidon.http.Status;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The answers to a request, or a turn, that the memory store failed because its database could not be reached
 * (503: it comes back by itself, retry) or its disk is full (507 Insufficient Storage: an operator must free
 * space; a client that retries 503s automatically should not hammer a full disk). The details, which name the
 * database, go to the log only.
 */
final class StoreFailures {
    private static final Logger LOG = LoggerFactory.getLogger(StoreFailures.class);

    private StoreFailures() {
    }

    /** The answer to a request that failed with {@code e}, when {@code e} (or a cause of it) is a store failure. */
    static Optional<ApiException> answer(Throwable e) {
        return answer(e, "The request was not completed; retry in a few seconds.",
                "The request was refused and nothing of it was stored.");
    }

    /** The answer to a turn that failed with {@code e}, when {@code e} (or a cause of it) is a store failure. */
    static Optional<ApiException> answerTurn(Throwable e) {
        return answer(e, "The turn was stopped; what the agent stored before the failure stays. Send the message "
                + "again in a few seconds.", "The turn was stopped; what the agent stored before the disk filled up "
                + "stays, and nothing after it was stored.");
    }

    private static Optional<ApiException> answer(Throwable e, String unavailable, String full) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof StorageUnavailableException) {
                LOG.warn("The memory store is unavailable: {}", t.getMessage());
                return Optional.of(ApiException.of(Status.SERVICE_UNAVAILABLE_503,
                        "The memory store is unavailable: its database cannot be reached (it may be restarting). "
                                + unavailable));
            }
            if (t instanceof StorageFullException) {
                LOG.error("The memory store's disk is full: {}", t.getMessage());
                return Optional.of(ApiException.of(Status.INSUFFICIENT_STORAGE_507,
                        "The server's disk is full (insufficient storage): the memory store refuses writes until the "
                                + "operator frees space. " + full));
            }
        }
        return Optional.empty();
    }
}
