package dev.engram.agents;

/** An agent could not be created, loaded or run; the message says what to change. */
public class AgentException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public AgentException(String message) {
        super(message);
    }

    public AgentException(String message, Throwable cause) {
        super(message, cause);
    }
}
