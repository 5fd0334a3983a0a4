package dev.engram.agents;

import dev.engram.framework.ToolDefinition;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code request_heartbeat} argument the runtime adds to every tool: the model sets it to be called
 * again after the tool returns. It is added to the schemas the model sees and stripped from the
 * arguments before the pipeline validates them, so tools never see it.
 */
final class Heartbeats {
    static final String FIELD = "request_heartbeat";
    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String DESCRIPTION = "Set to true to be called again after this tool returns, "
            + "e.g. to use its result; otherwise your turn may end here.";

    private Heartbeats() {
    }

    /** The definition with {@code request_heartbeat} among its properties. */
    static ToolDefinition withHeartbeat(ToolDefinition tool) {
        ObjectNode schema = tool.parameters();
        JsonNode props = schema.get("properties");
        ObjectNode properties = props instanceof ObjectNode o ? o : schema.putObject("properties");
        ObjectNode hb = properties.putObject(FIELD);
        hb.put("type", "boolean");
        hb.put("description", DESCRIPTION);
        return new ToolDefinition(tool.name(), tool.description(), schema, tool.tier());
    }

    /**
     * Arguments without the heartbeat field.
     *
     * @param arguments the JSON to hand to the pipeline (unchanged if it was not a JSON object)
     * @param requested whether the call asked for a heartbeat
     * @param key       the arguments in a canonical form, for the loop breaker
     */
    record Stripped(String arguments, boolean requested, String key) {
    }

    static Stripped strip(String arguments) {
        String raw = arguments == null || arguments.isBlank() ? "{}" : arguments;
        JsonNode node;
        try {
            node = JSON.readTree(raw);
        } catch (JacksonException e) {
            return new Stripped(arguments, false, raw);
        }
        if (!(node instanceof ObjectNode object)) {
            return new Stripped(arguments, false, raw);
        }
        JsonNode flag = object.remove(FIELD);
        boolean requested = flag != null && (flag.isBoolean() ? flag.booleanValue() : "true".equalsIgnoreCase(flag.asString("")));
        String json = flag == null ? raw : object.toString();
        return new Stripped(json, requested, canonical(object));
    }

    private static String canonical(JsonNode node) {
        if (node instanceof ObjectNode o) {
            java.util.TreeMap<String, String> sorted = new java.util.TreeMap<>();
            o.properties().forEach(e -> sorted.put(e.getKey(), canonical(e.getValue())));
            return sorted.toString();
        }
        return node.toString();
    }
}
