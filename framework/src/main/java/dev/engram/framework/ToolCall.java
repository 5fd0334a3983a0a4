package dev.engram.framework;

import java.util.Objects;

/**
 * One tool call as a model emitted it.
 *
 * @param id        the provider's call id, echoed in the result so the two can be paired; may be empty
 * @param name      the tool name the model asked for (not yet checked to exist)
 * @param arguments the raw argument text, normally a JSON object; kept verbatim because it may be
 *                  malformed, in which case the pipeline answers with a correction message
 */
public record ToolCall(String id, String name, String arguments) {
    public ToolCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
    }

    /** A call without a provider id. */
    public static ToolCall of(String name, String arguments) {
        return new ToolCall("", name, arguments);
    }
}
