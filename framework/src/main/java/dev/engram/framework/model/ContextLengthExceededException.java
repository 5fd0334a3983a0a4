package dev.engram.framework.model;

/** The prompt is longer than the model's context window; compact the conversation and try again. */
public class ContextLengthExceededException extends ModelHttpException {
    private static final long serialVersionUID = 1L;

    public ContextLengthExceededException(String provider, int status, String providerMessage) {
        super(provider, status, providerMessage);
    }
}
