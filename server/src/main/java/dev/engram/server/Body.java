package dev.engram.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A JSON request body, read field by field with the contract's types. A field of the wrong type is a 422
 * naming it (as FastAPI words it); an absent field or a JSON {@code null} is empty, as Letta's optional fields
 * are; fields the server does not know are ignored, as Letta ignores them.
 */
final class Body {
    static final JsonMapper JSON = JsonMapper.builder().build();

    private final ObjectNode node;
    private final List<String> at;

    private Body(ObjectNode node, List<String> at) {
        this.node = node;
        this.at = at;
    }

    /** Parses a request body that must be a JSON object; an empty body is an empty object. */
    static Body parse(String text) {
        if (text == null || text.isBlank()) {
            return new Body(JSON.createObjectNode(), List.of("body"));
        }
        JsonNode parsed;
        try {
            parsed = JSON.readTree(text);
        } catch (JacksonException e) {
            String reason = firstLine(e.getOriginalMessage());
            throw ApiException.invalid("json_invalid", "JSON decode error: " + (Incidents.presentable(reason) ? reason
                    : "the body is not JSON this server reads (malformed, or nested deeper than its limit)"), "body");
        }
        if (!(parsed instanceof ObjectNode o)) {
            throw ApiException.invalid("model_attributes_type", "Input should be a valid dictionary or object", "body");
        }
        return new Body(o, List.of("body"));
    }

    /** A nested object of an array or field, read with its location for errors. */
    static Body of(JsonNode node, List<String> at) {
        if (!(node instanceof ObjectNode o)) {
            throw ApiException.invalid(List.of(new ApiException.Problem("model_attributes_type",
                    "Input should be a valid dictionary or object", at)));
        }
        return new Body(o, at);
    }

    ObjectNode node() {
        return node;
    }

    boolean has(String field) {
        JsonNode v = node.get(field);
        return v != null && !v.isNull();
    }

    Optional<String> string(String field) {
        JsonNode v = value(field);
        if (v == null) {
            return Optional.empty();
        }
        if (!v.isString()) {
            throw problem("string_type", "Input should be a valid string", field);
        }
        return Optional.of(v.asString());
    }

    String requiredString(String field) {
        return string(field).orElseThrow(() -> problem("missing", "Field required", field));
    }

    Optional<Integer> integer(String field) {
        JsonNode v = value(field);
        if (v == null) {
            return Optional.empty();
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw problem("int_type", "Input should be a valid integer", field);
        }
        return Optional.of(v.intValue());
    }

    Optional<Boolean> bool(String field) {
        JsonNode v = value(field);
        if (v == null) {
            return Optional.empty();
        }
        if (!v.isBoolean()) {
            throw problem("bool_type", "Input should be a valid boolean", field);
        }
        return Optional.of(v.booleanValue());
    }

    Optional<List<String>> strings(String field) {
        JsonNode v = value(field);
        if (v == null) {
            return Optional.empty();
        }
        if (!v.isArray()) {
            throw problem("list_type", "Input should be a valid list", field);
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            if (!v.get(i).isString()) {
                throw problem("string_type", "Input should be a valid string", field, String.valueOf(i));
            }
            out.add(v.get(i).asString());
        }
        return Optional.of(out);
    }

    /** The objects of an array field, each with its location. */
    Optional<List<Body>> objects(String field) {
        JsonNode v = value(field);
        if (v == null) {
            return Optional.empty();
        }
        if (!v.isArray()) {
            throw problem("list_type", "Input should be a valid list", field);
        }
        List<Body> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            out.add(of(v.get(i), location(field, String.valueOf(i))));
        }
        return Optional.of(out);
    }

    Optional<ObjectNode> object(String field) {
        JsonNode v = value(field);
        if (v == null) {
            return Optional.empty();
        }
        if (!(v instanceof ObjectNode o)) {
            throw problem("dict_type", "Input should be a valid dictionary", field);
        }
        return Optional.of(o);
    }

    Optional<JsonNode> raw(String field) {
        return Optional.ofNullable(value(field));
    }

    /** A 422 for a field of this body. */
    ApiException problem(String type, String message, String... field) {
        return ApiException.invalid(List.of(new ApiException.Problem(type, message, location(field))));
    }

    List<String> location(String... field) {
        List<String> loc = new ArrayList<>(at);
        loc.addAll(List.of(field));
        return loc;
    }

    private JsonNode value(String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "malformed JSON";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
