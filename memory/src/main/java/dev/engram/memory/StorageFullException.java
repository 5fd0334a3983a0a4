package dev.engram.memory;

/**
 * A write was refused because the disk that holds the memory store is full. The write was rolled back:
 * nothing of it was stored, and everything stored before is intact. Writes succeed again once space is
 * freed on that disk; reads keep working meanwhile.
 */
public class StorageFullException extends MemoryException {
    private static final long serialVersionUID = 1L;

    public StorageFullException(String message, Throwable cause) {
        super(message, cause);
    }
}
