package dev.engram.framework;

/**
 * A tool is defined wrongly: an invalid name, an input type that cannot be turned into a JSON Schema,
 * a duplicate registration. Raised when the tool is defined or registered, never during a call; the
 * message says what to change.
 */
public class ToolDefinitionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ToolDefinitionException(String message) {
        super(message);
    }

    public ToolDefinitionException(String message, Throwable cause) {
        super(message, cause);
    }
}
