package dev.engram.framework;

/** Arguments that passed the schema but still cannot be bound to the tool's input; reported as {@link ToolStatus#INVALID_ARGUMENTS}. */
final class InvalidArgumentsException extends ToolException {
    private static final long serialVersionUID = 1L;

    InvalidArgumentsException(String messageForModel) {
        super(messageForModel);
    }
}
