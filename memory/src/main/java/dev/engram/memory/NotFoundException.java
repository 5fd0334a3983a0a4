package dev.engram.memory;

/** The block, entry, note or message does not exist in the caller's scope (whether or not it exists elsewhere). */
public class NotFoundException extends MemoryException {
    private static final long serialVersionUID = 1L;

    public NotFoundException(String message) {
        super(message);
    }
}
