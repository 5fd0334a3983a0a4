package dev.engram.server;

import dev.engram.memory.Identity;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * An identity's properties as Letta takes them: a list of {@code IdentityProperty} ({@code key}, a {@code value} of its
 * {@code type}: {@code string}, {@code number}, {@code boolean} or {@code json}, an object), each key once. One check for
 * every route that sets them (create, upsert, {@code PATCH}, {@code PUT …/properties}), so that each refuses the same
 * input with the same 422 naming the item, before anything is stored.
 */
final class IdentityProperties {
    private static final Set<String> FIELDS = Set.of("key", "value", "type");

    private IdentityProperties() {
    }

    /**
     * The list, checked, as the JSON text the store keeps; a 422 at {@code at} (the list's location, such as
     * {@code body, properties}) naming the first bad item otherwise.
     */
    static String checked(JsonNode list, List<String> at) {
        if (list == null || !list.isArray()) {
            throw ApiException.invalid(List.of(new ApiException.Problem("list_type",
                    "Input should be a valid list of {key, value, type}", at)));
        }
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            List<String> where = new ArrayList<>(at);
            where.add(String.valueOf(i));
            Body item = Body.of(list.get(i), where);
            Set<String> fields = new HashSet<>();
            item.node().propertyNames().forEach(fields::add);
            fields.removeAll(FIELDS);
            if (!fields.isEmpty()) {
                throw item.problem("extra_forbidden", "Extra inputs are not permitted", fields.iterator().next());
            }
            String key = item.requiredString("key");
            if (key.isBlank() || !keys.add(key)) {
                throw item.problem("value_error", key.isBlank() ? "A key must not be blank" : "Key '" + key + "' is given twice",
                        "key");
            }
            String type = item.requiredString("type");
            JsonNode value = item.raw("value").orElseThrow(() -> item.problem("missing", "Field required", "value"));
            boolean fits = switch (type) {
                case "string" -> value.isString();
                case "number" -> value.isNumber();
                case "boolean" -> value.isBoolean();
                case "json" -> value.isObject();
                default -> throw item.problem("enum", "Input should be 'string', 'number', 'boolean' or 'json'", "type");
            };
            if (!fits) {
                throw item.problem("value_error", "The value is not of type '" + type + "'", "value");
            }
        }
        String text = Body.JSON.writeValueAsString(list);
        if (text.length() > Identity.MAX_PROPERTIES) {
            throw ApiException.invalid(List.of(new ApiException.Problem("too_long", "An identity's properties hold at most "
                    + Identity.MAX_PROPERTIES + " characters as JSON, not " + text.length(), at)));
        }
        return text;
    }

    /**
     * The stored properties with the checked {@code changes} laid over them by key, as Letta's {@code PATCH} merges
     * them: a property of a key given replaces the old one in its place, new keys come after; the others stay.
     */
    static String merged(String stored, String changes) {
        Map<String, JsonNode> byKey = new LinkedHashMap<>();
        for (JsonNode old : list(stored)) {
            byKey.put(old.path("key").asString(), old);
        }
        for (JsonNode change : list(changes)) {
            byKey.put(change.path("key").asString(), change);
        }
        ArrayNode out = Body.JSON.createArrayNode();
        byKey.values().forEach(out::add);
        return Body.JSON.writeValueAsString(out);
    }

    /** Stored properties as a list: anything but a JSON list (a store written by hand) is none. */
    static ArrayNode list(String stored) {
        try {
            JsonNode list = Body.JSON.readTree(stored);
            return list != null && list.isArray() ? (ArrayNode) list : Body.JSON.createArrayNode();
        } catch (JacksonException e) {
            return Body.JSON.createArrayNode();
        }
    }
}
