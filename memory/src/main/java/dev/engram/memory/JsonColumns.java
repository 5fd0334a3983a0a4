package dev.engram.memory;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The JSON columns: archival tags and message tool calls. */
final class JsonColumns {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private JsonColumns() {
    }

    static String tags(List<String> tags) {
        if (tags.isEmpty()) {
            return "[]";
        }
        ArrayNode array = MAPPER.createArrayNode();
        tags.forEach(array::add);
        return MAPPER.writeValueAsString(array);
    }

    static List<String> tags(String json) {
        List<String> out = new ArrayList<>();
        MAPPER.readTree(json).forEach(n -> out.add(n.asString()));
        return out;
    }

    static String toolCalls(List<MessageToolCall> calls) {
        if (calls.isEmpty()) {
            return null;
        }
        ArrayNode array = MAPPER.createArrayNode();
        for (MessageToolCall c : calls) {
            ObjectNode o = array.addObject();
            o.put("id", c.id());
            o.put("name", c.name());
            o.put("arguments", c.arguments());
        }
        return MAPPER.writeValueAsString(array);
    }

    static List<MessageToolCall> toolCalls(String json) {
        if (json == null) {
            return List.of();
        }
        List<MessageToolCall> out = new ArrayList<>();
        for (JsonNode n : MAPPER.readTree(json)) {
            out.add(new MessageToolCall(n.path("id").asString(), n.path("name").asString(), n.path("arguments").asString()));
        }
        return out;
    }
}
