package dev.engram.memory;

/**
 * A tool call an assistant message made, as stored.
 *
 * @param id        the provider's call id, which the tool message answering it repeats
 * @param name      the tool
 * @param arguments the raw argument text
 */
public record MessageToolCall(String id, String name, String arguments) {
    public MessageToolCall {
        Checks.text(id, "tool call id");
        Checks.text(name, "tool name");
        Checks.text(arguments, "arguments");
    }
}
