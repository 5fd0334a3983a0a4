package dev.engram.framework;

/**
 * Thrown by a tool to report a failure the model should read and act on, such as "no note with id
 * note-123". The pipeline turns it into an error {@link ToolResult} whose content is this exception's
 * message, verbatim, so write it for the model: what went wrong and what to do instead.
 *
 * <p>Any other exception thrown by a tool is treated as an internal error: it is logged with its
 * stack trace and the model only sees a generic message.
 */
public class ToolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param messageForModel what the model is told; must not be blank */
    public ToolException(String messageForModel) {
        super(requireMessage(messageForModel));
    }

    /** @param messageForModel what the model is told; {@code cause} goes to the log only */
    public ToolException(String messageForModel, Throwable cause) {
        super(requireMessage(messageForModel), cause);
    }

    private static String requireMessage(String message) {
        if (message == null || message.isBlank()) {
            throw new IllegalArgumentException("a ToolException needs a message for the model");
        }
        return message;
    }
}
