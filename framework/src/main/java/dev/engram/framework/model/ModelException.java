package dev.engram.framework.model;

/** A model call failed; the message says why and, where it can, what to do. */
public class ModelException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ModelException(String message) {
        super(message);
    }

    public ModelException(String message, Throwable cause) {
        super(message, cause);
    }
}
