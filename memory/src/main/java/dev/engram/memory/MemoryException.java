package dev.engram.memory;

/** Base of the memory layer's exceptions: unchecked, each message a sentence a caller can act on. */
public class MemoryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MemoryException(String message) {
        super(message);
    }

    public MemoryException(String message, Throwable cause) {
        super(message, cause);
    }
}
