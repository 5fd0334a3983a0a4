package dev.engram.agents;

import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * A tool an agent was given by its agent file, with no implementation in Engram: a Letta custom tool
 * (its Python source and JSON Schema), or a Letta built-in this runtime does not offer. The agent
 * offers it to the model with its schema. A call runs the implementation registered under the same
 * name ({@code AgentRuntime.Builder.tool}), if any; otherwise the local Python runner, if enabled and
 * the source is Python; otherwise it fails with an error that says how to provide one.
 *
 * @param name        the tool's name
 * @param description what it does, for the model
 * @param parameters  the JSON Schema of its arguments (a JSON object, as text)
 * @param kind        where it came from: Letta's {@code tool_type}, e.g. {@code custom}, {@code letta_builtin}
 * @param sourceType  the language of {@code sourceCode}, e.g. {@code python}; empty if none
 * @param sourceCode  its source, as the file had it; empty if none
 * @param returnCharLimit the most characters of its output the model sees (Letta's {@code return_char_limit}); 0 for
 *                    the runtime's output budget only
 */
public record DeclaredTool(String name, String description, String parameters, String kind, String sourceType,
        String sourceCode, int returnCharLimit) {
    /** A declared tool without a limit of its own. */
    public DeclaredTool(String name, String description, String parameters, String kind, String sourceType, String sourceCode) {
        this(name, description, parameters, kind, sourceType, sourceCode, 0);
    }

    public DeclaredTool {
        if (returnCharLimit < 0) {
            throw new IllegalArgumentException("the return character limit of tool '" + name + "' must not be negative, got "
                    + returnCharLimit);
        }
        if (name == null || !name.matches("[a-zA-Z0-9_-]{1,64}")) {
            throw new IllegalArgumentException("a declared tool's name must be 1 to 64 letters, digits, '_' or '-', got '"
                    + name + "'");
        }
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(sourceType, "sourceType");
        Objects.requireNonNull(sourceCode, "sourceCode");
        JsonNode schema;
        try {
            schema = Heartbeats.JSON.readTree(Objects.requireNonNull(parameters, "parameters"));
        } catch (JacksonException e) {
            throw new IllegalArgumentException("the parameters of tool '" + name + "' are not valid JSON: " + e.getOriginalMessage());
        }
        if (!schema.isObject()) {
            throw new IllegalArgumentException("the parameters of tool '" + name + "' must be a JSON Schema object");
        }
    }

    /**
     * Whether its source is a Python function of its name, which the local Python runner can run. (Letta
     * writes {@code source_type} {@code json} for Python tools whose schema was given as JSON.)
     */
    public boolean isPython() {
        return !sourceType.equalsIgnoreCase("typescript") && !sourceType.equalsIgnoreCase("javascript")
                && sourceCode.contains("def " + name + "(");
    }
}
