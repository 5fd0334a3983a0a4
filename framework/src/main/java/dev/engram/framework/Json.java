package dev.engram.framework;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one Jackson mapper of tool arguments and outputs: strict about unknown fields and nulls for
 * primitives, and snake_case, the convention of tool arguments across providers (a record component
 * {@code noteId} is the argument {@code note_id}).
 */
final class Json {
    static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .build();

    private Json() {
    }

    /** Renders a value for an error message: compact JSON, cut to about 60 characters. */
    static String preview(JsonNode node) {
        String text;
        try {
            text = MAPPER.writeValueAsString(node);
        } catch (JacksonException e) {
            text = String.valueOf(node);
        }
        return text.length() <= 60 ? text : text.substring(0, 57) + "...";
    }

    /** The JSON type name of a node, as JSON Schema calls it. */
    static String typeName(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "nothing";
        }
        return switch (node.getNodeType()) {
            case STRING -> "string";
            case NUMBER -> node.isIntegralNumber() ? "integer" : "number";
            case BOOLEAN -> "boolean";
            case ARRAY -> "array";
            case OBJECT, POJO -> "object";
            case NULL -> "null";
            default -> node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
