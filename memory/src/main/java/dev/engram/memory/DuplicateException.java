package dev.engram.memory;

/** Something with that label already exists in the scope. */
public class DuplicateException extends MemoryException {
    private static final long serialVersionUID = 1L;

    public DuplicateException(String message) {
        super(message);
    }
}
