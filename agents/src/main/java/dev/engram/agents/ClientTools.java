package dev.engram.agents;

import dev.engram.framework.ToolDefinition;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Tools a turn's client runs itself (Letta's {@code client_tools}), offered to the model for that turn only, beside the
 * agent's own tools (a client tool of the same name as one of them replaces it for the turn, as in Letta), and the
 * {@link ClientHandler} that hands their calls to the client. A model's call to one ends its step: the step's calls that
 * wait for the client (these, and calls of the agent's tools that need approval) go to the handler together; when it
 * answers, the step's other calls run, every result is stored as the call's, and the turn goes on. Nothing of them is
 * stored on the agent.
 *
 * @param tools   the tools' definitions, unique by name
 * @param handler who hands their calls to the client
 */
public record ClientTools(List<ToolDefinition> tools, ClientHandler handler) {
    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_-]{1,64}");

    /**
     * @throws IllegalArgumentException if a name is not 1 to 64 letters, digits, '_' or '-', or two tools share one
     */
    public ClientTools {
        tools = List.copyOf(tools);
        Objects.requireNonNull(handler, "handler must not be null");
        Set<String> seen = new HashSet<>();
        for (ToolDefinition t : tools) {
            if (!NAME.matcher(t.name()).matches()) {
                throw new IllegalArgumentException("a client tool's name must be 1 to 64 letters, digits, '_' or '-', got '"
                        + t.name() + "'");
            }
            if (!seen.add(t.name())) {
                throw new IllegalArgumentException("two client tools are named '" + t.name() + "'; give each its own name");
            }
        }
    }

    /** Whether {@code name} is one of these tools. */
    public boolean has(String name) {
        return tools.stream().anyMatch(t -> t.name().equals(name));
    }
}
