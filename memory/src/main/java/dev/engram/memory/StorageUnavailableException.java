package dev.engram.memory;

/**
 * The database behind the memory store could not be reached (it is restarting, down, or the connection
 * to it was lost) within the store's timeout. A read may simply be retried. A write that failed this way
 * was not acknowledged: it was rolled back, or, if the connection broke during its commit, it may have
 * been kept; either way the store stays consistent. The store reconnects by itself once the database is
 * back; nothing needs to be reopened.
 */
public class StorageUnavailableException extends MemoryException {
    private static final long serialVersionUID = 1L;

    public StorageUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
