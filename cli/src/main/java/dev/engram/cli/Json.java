package dev.engram.cli;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** JSON for the CLI's output. */
final class Json {
    static final JsonMapper MAPPER = JsonMapper.builder().build();

    private Json() {
    }

    static String pretty(String json) {
        return MAPPER.readTree(json).toPrettyString();
    }

    static String pretty(Object value) {
        return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(value);
    }

    static JsonNode parse(String json) {
        return MAPPER.readTree(json);
    }
}
