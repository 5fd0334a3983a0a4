package dev.engram.framework.model;

/** The provider answered with an error status; the message carries the provider's own error text. */
public class ModelHttpException extends ModelException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String providerMessage;

    public ModelHttpException(String provider, int status, String providerMessage) {
        super(provider + " returned HTTP " + status + ": " + providerMessage);
        this.status = status;
        this.providerMessage = providerMessage;
    }

    public int status() {
        return status;
    }

    /** The error message as the provider wrote it. */
    public String providerMessage() {
        return providerMessage;
    }
}
