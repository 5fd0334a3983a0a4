package dev.engram.framework;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a model is told about a tool: its name, description, argument schema and safety tier, and
 * the conversions to each provider's format.
 *
 * @param name        the tool name
 * @param description the description written for the model
 * @param parameters  the JSON Schema of the arguments (a private copy; the accessor returns a copy too)
 * @param tier        the safety tier, rendered as MCP hints
 */
public record ToolDefinition(String name, String description, ObjectNode parameters, SafetyTier tier) {
    /** Schema keywords Gemini's OpenAPI-subset {@code Schema} accepts; everything else is dropped. */
    private static final Set<String> GEMINI_KEYWORDS = Set.of(
            "type", "format", "title", "description", "nullable", "enum", "items", "properties", "required",
            "minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength", "pattern",
            "minimum", "maximum", "anyOf", "propertyOrdering", "default", "example");

    public ToolDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(tier, "tier");
        parameters = Objects.requireNonNull(parameters, "parameters").deepCopy();
    }

    /**
     * A definition of a tool described elsewhere (a client's), checked as a registered tool's is: a name every
     * provider accepts and a parameter schema that compiles as JSON Schema.
     *
     * @throws ToolDefinitionException saying what is wrong with the name or the schema
     */
    public static ToolDefinition checked(String name, String description, ObjectNode parameters, SafetyTier tier) {
        ToolNames.requireValid(name);
        List<String> problems = ArgumentValidator.schemaProblems(Objects.requireNonNull(parameters, "parameters"));
        if (!problems.isEmpty()) {
            throw new ToolDefinitionException("The tool's parameter schema is not a valid JSON Schema: "
                    + String.join("; ", problems));
        }
        ArgumentValidator.forSchema(parameters);
        return new ToolDefinition(name, description, parameters, tier);
    }

    /** The definition of a tool as the registry holds it. */
    public static ToolDefinition of(DynamicTool tool) {
        return new ToolDefinition(tool.name(), tool.description(), tool.parametersSchema(), tool.safetyTier());
    }

    @Override
    public ObjectNode parameters() {
        return parameters.deepCopy();
    }

    /** This definition in a provider's format, as a new JSON object. */
    public ObjectNode toJson(ToolFormat format) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        switch (format) {
            case OPENAI -> {
                out.put("type", "function");
                ObjectNode function = out.putObject("function");
                function.put("name", name);
                function.put("description", description);
                function.set("parameters", parameters.deepCopy());
            }
            case ANTHROPIC -> {
                out.put("name", name);
                out.put("description", description);
                out.set("input_schema", parameters.deepCopy());
            }
            case GEMINI -> {
                out.put("name", name);
                out.put("description", description);
                out.set("parameters", toGeminiSchema(parameters));
            }
            case MCP -> {
                out.put("name", name);
                out.put("description", description);
                out.set("inputSchema", parameters.deepCopy());
                ObjectNode annotations = out.putObject("annotations");
                annotations.put("readOnlyHint", tier == SafetyTier.READ_ONLY);
                annotations.put("destructiveHint", tier == SafetyTier.PRIVILEGED);
            }
        }
        return out;
    }

    /**
     * Reduces a JSON Schema to Gemini's subset: unknown keywords dropped, {@code const} as a one-value
     * enum, a {@code ["x", "null"]} type as {@code x} with {@code nullable: true}.
     */
    static ObjectNode toGeminiSchema(JsonNode schema) {
        ObjectNode out = Json.MAPPER.createObjectNode();
        if (!schema.isObject()) {
            return out;
        }
        for (Map.Entry<String, JsonNode> e : schema.properties()) {
            String key = e.getKey();
            JsonNode value = e.getValue();
            switch (key) {
                case "type" -> {
                    if (value.isArray()) {
                        String type = null;
                        for (JsonNode t : value) {
                            if (t.asString().equals("null")) {
                                out.put("nullable", true);
                            } else if (type == null) {
                                type = t.asString();
                            }
                        }
                        if (type != null) {
                            out.put("type", type);
                        }
                    } else {
                        out.set("type", value.deepCopy());
                    }
                }
                case "const" -> out.putArray("enum").add(value.deepCopy());
                case "properties" -> {
                    ObjectNode props = out.putObject("properties");
                    for (Map.Entry<String, JsonNode> p : value.properties()) {
                        props.set(p.getKey(), toGeminiSchema(p.getValue()));
                    }
                }
                case "items" -> out.set("items", toGeminiSchema(value));
                case "anyOf" -> {
                    ArrayNode any = out.putArray("anyOf");
                    value.forEach(v -> any.add(toGeminiSchema(v)));
                }
                default -> {
                    if (GEMINI_KEYWORDS.contains(key)) {
                        out.set(key, value.deepCopy());
                    }
                }
            }
        }
        return out;
    }
}
