package dev.engram.framework;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Checks a call's arguments against a tool's schema and describes every problem so that a model can
 * correct itself: the field's path, what was expected, what came.
 */
interface ArgumentValidator {
    /** The problems found, each one sentence; empty when the arguments are valid. */
    List<String> problems(JsonNode arguments);

    /**
     * The problems of a schema as JSON Schema 2020-12 (checked against its meta-schema, which the validator library
     * bundles), each one sentence; empty when it is a valid schema.
     */
    static List<String> schemaProblems(ObjectNode schema) {
        List<String> out = new ArrayList<>();
        // A schema that names its dialect (Letta Code's name draft-07) is checked against that dialect's meta-schema.
        String dialect = schema.path("$schema").asString("").replaceAll("#$", "");
        Schema meta = SchemaValidator.DIALECTS.contains(dialect)
                ? SchemaValidator.METAS.computeIfAbsent(dialect, d -> SchemaValidator.REGISTRY.getSchema(SchemaLocation.of(d)))
                : SchemaValidator.META;
        for (Error e : meta.validate(schema)) {
            String p = e.getInstanceLocation() + ": " + e.getMessage();
            if (!out.contains(p)) {
                out.add(p);
            }
        }
        return out;
    }

    /** A validator for a plain JSON Schema, compiled once. */
    static ArgumentValidator forSchema(ObjectNode schema) {
        return new SchemaValidator(schema);
    }

    /** Validates with networknt's JSON Schema 2020-12 implementation and rewrites its errors for models. */
    final class SchemaValidator implements ArgumentValidator {
        static final SchemaRegistry REGISTRY =
                SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
        /** The 2020-12 meta-schema, which a schema written elsewhere (a client's) is checked against. */
        static final Schema META = REGISTRY.getSchema(SchemaLocation.of(
                "https://json-schema.org/draft/2020-12/schema"));
        /** The dialects whose meta-schemas the library bundles, as a schema's {@code $schema} names them. */
        static final Set<String> DIALECTS = java.util.Set.of("http://json-schema.org/draft-04/schema",
                "http://json-schema.org/draft-06/schema", "http://json-schema.org/draft-07/schema",
                "https://json-schema.org/draft/2019-09/schema", "https://json-schema.org/draft/2020-12/schema");
        static final Map<String, Schema> METAS = new ConcurrentHashMap<>();

        private final ObjectNode schemaNode;
        private final Schema schema;

        SchemaValidator(ObjectNode schemaNode) {
            this.schemaNode = schemaNode;
            try {
                this.schema = REGISTRY.getSchema(schemaNode);
                this.schema.initializeValidators();
            } catch (RuntimeException e) {
                throw new ToolDefinitionException("The tool's parameter schema is not a valid JSON Schema: " + e.getMessage(), e);
            }
        }

        @Override
        public List<String> problems(JsonNode arguments) {
            List<Error> errors = schema.validate(arguments);
            if (errors.isEmpty()) {
                return List.of();
            }
            List<String> problems = new ArrayList<>(errors.size());
            for (Error error : errors) {
                String p = describe(error);
                if (!problems.contains(p)) {
                    problems.add(p);
                }
            }
            return problems;
        }

        private String describe(Error error) {
            String at = fieldPath(error.getInstanceLocation().toString());
            JsonNode instance = error.getInstanceNode();
            String keyword = error.getKeyword() == null ? "" : error.getKeyword();
            return switch (keyword) {
                case "required" -> "missing required field '" + join(at, error.getProperty()) + "'";
                case "additionalProperties" -> {
                    String field = join(at, error.getProperty());
                    List<String> allowed = allowedFields(at);
                    yield "unknown field '" + field + "'"
                            + (allowed.isEmpty() ? "" : "; expected fields: " + String.join(", ", allowed));
                }
                case "type" -> fieldLabel(at) + "expected " + expectedType(error.getSchemaNode())
                        + ", got " + Json.typeName(instance) + " " + Json.preview(instance);
                case "enum" -> fieldLabel(at) + "expected one of " + Json.preview(error.getSchemaNode())
                        + ", got " + Json.preview(instance);
                case "const" -> fieldLabel(at) + "expected " + Json.preview(error.getSchemaNode())
                        + ", got " + Json.preview(instance);
                default -> fieldLabel(at) + stripLocation(error.getMessage()) + " (got " + Json.preview(instance) + ")";
            };
        }

        private static String expectedType(JsonNode typeNode) {
            if (typeNode != null && typeNode.isArray()) {
                List<String> names = new ArrayList<>();
                typeNode.forEach(n -> names.add(n.asString()));
                return String.join(" or ", names);
            }
            return typeNode == null ? "another type" : typeNode.asString();
        }

        /** An instance location, a JSON Pointer such as "/items/0/x" (or "$.items[0].x"), as "items[0].x". */
        static String fieldPath(String location) {
            if (location.isEmpty() || location.equals("$") || location.equals("/")) {
                return "";
            }
            if (location.startsWith("$")) {
                return location.startsWith("$.") ? location.substring(2) : location.substring(1);
            }
            StringBuilder out = new StringBuilder();
            for (String raw : location.substring(location.startsWith("/") ? 1 : 0).split("/", -1)) {
                String segment = raw.replace("~1", "/").replace("~0", "~");
                if (!segment.isEmpty() && segment.chars().allMatch(Character::isDigit)) {
                    out.append('[').append(segment).append(']');
                } else {
                    if (!out.isEmpty()) {
                        out.append('.');
                    }
                    out.append(segment);
                }
            }
            return out.toString();
        }

        private static String join(String at, String property) {
            return at.isEmpty() ? property : at + "." + property;
        }

        private static String fieldLabel(String at) {
            return at.isEmpty() ? "arguments: " : "field '" + at + "': ";
        }

        private static String stripLocation(String message) {
            int colon = message.indexOf(": ");
            return message.startsWith("$") && colon > 0 ? message.substring(colon + 2) : message;
        }

        /** The property names the schema allows at a dotted instance path (array indices skipped). */
        private List<String> allowedFields(String at) {
            JsonNode node = schemaNode;
            if (!at.isEmpty()) {
                for (String part : at.split("\\.")) {
                    String name = part.replaceAll("\\[\\d+]", "");
                    node = node.path("properties").path(name);
                    for (int i = part.indexOf('['); i >= 0; i = part.indexOf('[', i + 1)) {
                        node = node.path("items");
                    }
                }
            }
            List<String> names = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.path("properties").properties().iterator(); it.hasNext(); ) {
                names.add(it.next().getKey());
            }
            return names;
        }
    }
}
