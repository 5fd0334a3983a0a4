package dev.engram.framework.model;

import java.time.Duration;

/**
 * A model call ran out of its timeout: the provider did not answer, stopped sending halfway, or sent too
 * slowly. The message names the provider and the timeout.
 */
public class ModelTimeoutException extends ModelException {
    private static final long serialVersionUID = 1L;

    private final String provider;
    private final transient Duration timeout;

    public ModelTimeoutException(String provider, Duration timeout, String message, Throwable cause) {
        super(message, cause);
        this.provider = provider;
        this.timeout = timeout;
    }

    /** The provider that did not answer in time, as the message names it. */
    public String provider() {
        return provider;
    }

    /** The timeout it ran out of. */
    public Duration timeout() {
        return timeout;
    }
}
