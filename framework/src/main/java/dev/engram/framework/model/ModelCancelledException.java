package dev.engram.framework.model;

/** The call was cancelled by interrupting the calling thread; the HTTP exchange was aborted. */
public class ModelCancelledException extends ModelException {
    private static final long serialVersionUID = 1L;

    public ModelCancelledException(String message) {
        super(message);
    }
}
