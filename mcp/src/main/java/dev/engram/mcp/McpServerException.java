package dev.engram.mcp;

/** An MCP server could not be reached, did not answer in time, or its circuit is open; the message says which. */
public final class McpServerException extends RuntimeException {
    public McpServerException(String message, Throwable cause) {
        super(message, cause);
    }
}
