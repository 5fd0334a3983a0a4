package dev.engram.framework;

import java.util.regex.Pattern;

/** The one rule for tool names, shared by every way of defining a tool. */
final class ToolNames {
    /** The name pattern every provider accepts. */
    static final Pattern VALID = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");

    private ToolNames() {
    }

    static String requireValid(String name) {
        if (name == null || !VALID.matcher(name).matches()) {
            throw new ToolDefinitionException("Tool name " + (name == null ? "null" : "'" + name + "'")
                    + " is invalid: use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'.");
        }
        return name;
    }

    static String requireDescription(String name, String description) {
        if (description == null || description.isBlank()) {
            throw new ToolDefinitionException("Tool '" + name + "' has no description: the model needs one to know "
                    + "what the tool does, when to use it and what it returns.");
        }
        return description;
    }
}
