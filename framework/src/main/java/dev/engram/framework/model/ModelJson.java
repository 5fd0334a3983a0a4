package dev.engram.framework.model;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** JSON for the wire formats: a plain mapper (the provider field names are written out by hand). */
final class ModelJson {
    static final JsonMapper MAPPER = JsonMapper.builder().build();

    private ModelJson() {
    }

    static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** Parses tool-call arguments into an object, or returns null if they are not a JSON object. */
    static ObjectNode argumentsObject(String arguments) {
        if (arguments == null || arguments.isBlank()) {
            return object();
        }
        try {
            JsonNode node = MAPPER.readTree(arguments);
            return node.isObject() ? (ObjectNode) node : null;
        } catch (JacksonException e) {
            return null;
        }
    }

    static String write(JsonNode node) {
        return MAPPER.writeValueAsString(node);
    }
}
