package dev.engram.framework;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.github.victools.jsonschema.generator.Option;
import com.github.victools.jsonschema.generator.OptionPreset;
import com.github.victools.jsonschema.generator.SchemaGenerator;
import com.github.victools.jsonschema.generator.SchemaGeneratorConfigBuilder;
import com.github.victools.jsonschema.generator.SchemaVersion;
import com.github.victools.jsonschema.module.jackson.JacksonOption;
import com.github.victools.jsonschema.module.jackson.JacksonSchemaModule;
import java.util.Iterator;
import java.util.List;
import tools.jackson.databind.PropertyNamingStrategies;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Generates fully inlined JSON Schemas for tool input records with victools: no {@code $ref}, no
 * {@code $defs}, {@code additionalProperties: false} on every object, every record component
 * required unless it is an {@code Optional}. Generated schemas are cached per type.
 */
final class InputSchemas {
    /**
     * The generator, made at the first schema generated (victools and its Jackson module load then), not when the class
     * is first used: a sealed tool input's operation names are read at the tool's construction, schemas only later.
     */
    private static final class Generator {
        static final SchemaGenerator INSTANCE = createGenerator();
    }

    private static final Map<Class<?>, ObjectNode> CACHE = new ConcurrentHashMap<>();

    private InputSchemas() {
    }

    private static SchemaGenerator createGenerator() {
        SchemaGeneratorConfigBuilder builder = new SchemaGeneratorConfigBuilder(
                Json.MAPPER, SchemaVersion.DRAFT_2020_12, OptionPreset.PLAIN_JSON)
                .with(new JacksonSchemaModule(JacksonOption.FLATTENED_ENUMS_FROM_JSONPROPERTY))
                .with(Option.INLINE_ALL_SCHEMAS, Option.FORBIDDEN_ADDITIONAL_PROPERTIES_BY_DEFAULT)
                .without(Option.SCHEMA_VERSION_INDICATOR);
        // Keep the record's declaration order (victools sorts alphabetically by default): it reads best.
        // An enum's values as the argument mapper writes them (@JsonProperty, @JsonValue respected).
        builder.forTypesInGeneral().withCustomDefinitionProvider((javaType, context) -> {
            Class<?> type = javaType.getErasedType();
            if (!type.isEnum()) {
                return null;
            }
            ObjectNode node = Json.MAPPER.createObjectNode();
            node.put("type", "string");
            ArrayNode values = node.putArray("enum");
            for (Object constant : type.getEnumConstants()) {
                values.add(Json.MAPPER.valueToTree(constant));
            }
            return new com.github.victools.jsonschema.generator.CustomDefinition(node);
        });
        builder.forTypesInGeneral().withPropertySorter((a, b) -> 0)
                .withArrayUniqueItemsResolver(scope -> scope.getType().isInstanceOf(java.util.Set.class) ? Boolean.TRUE : null)
                .withStringMinLengthResolver(scope -> isChar(scope.getType().getErasedType()) ? 1 : null)
                .withStringMaxLengthResolver(scope -> isChar(scope.getType().getErasedType()) ? 1 : null);
        builder.forFields()
                .withRequiredCheck(field -> !isOptionalType(field.getType().getErasedType()))
                .withNullableCheck(field -> false)
                // The argument mapper is snake_case; the module above has already applied any @JsonProperty name.
                .withPropertyNameOverrideResolver(field ->
                        PropertyNamingStrategies.SNAKE_CASE.nameForField(null, null, field.getDeclaredName()));
        return new SchemaGenerator(builder.build());
    }

    private static boolean isChar(Class<?> type) {
        return type == char.class || type == Character.class;
    }

    static boolean isOptionalType(Class<?> type) {
        return type == Optional.class || type == OptionalInt.class || type == OptionalLong.class
                || type == OptionalDouble.class;
    }

    /** The schema of a record type; the returned node is shared and must not be modified. */
    static ObjectNode forRecord(Class<?> recordType) {
        return CACHE.computeIfAbsent(recordType, InputSchemas::generate);
    }

    /**
     * The arguments schema of a {@code @Tool} method: one required property per parameter, each
     * generated from its type exactly as a record component of that type would be.
     *
     * @throws ToolDefinitionException if a parameter type has no usable schema
     */
    static ObjectNode forParameters(String toolName, List<GeneratedTools.Parameter> parameters) {
        ObjectNode schema = Json.MAPPER.createObjectNode();
        schema.put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        ArrayNode required = schema.putArray("required");
        for (GeneratedTools.Parameter p : parameters) {
            ObjectNode property;
            try {
                property = Generator.INSTANCE.generateSchema(p.type());
            } catch (RuntimeException e) {
                throw new ToolDefinitionException("Cannot generate a JSON Schema for parameter '" + p.jsonName() + "' of tool '"
                        + toolName + "': " + e.getMessage(), e);
            }
            if (containsKey(property, "$ref") || containsKey(property, "$defs")) {
                throw new ToolDefinitionException("Parameter '" + p.jsonName() + "' of tool '" + toolName
                        + "' refers to itself; a tool schema must be fully inlined, so use a non-recursive record.");
            }
            dropNullFromOptionals(property);
            if (p.description() != null && !p.description().isBlank()) {
                property.put("description", p.description());
            }
            properties.set(p.jsonName(), property);
            required.add(p.jsonName());
        }
        schema.put("additionalProperties", false);
        return schema;
    }

    private static ObjectNode generate(Class<?> recordType) {
        if (!recordType.isRecord()) {
            throw new ToolDefinitionException("Tool input type " + recordType.getName()
                    + " is not a record: declare the arguments as a record, or as a sealed interface of records.");
        }
        ObjectNode schema;
        try {
            schema = Generator.INSTANCE.generateSchema(recordType);
        } catch (RuntimeException e) {
            throw new ToolDefinitionException("Cannot generate a JSON Schema for tool input type " + recordType.getName()
                    + ": " + e.getMessage() + ". Tool inputs must not be recursive and must use JSON-mappable types.", e);
        }
        if (containsKey(schema, "$ref") || containsKey(schema, "$defs") || containsKey(schema, "definitions")) {
            throw new ToolDefinitionException("Tool input type " + recordType.getName()
                    + " refers to itself; a tool schema must be fully inlined, so use a non-recursive record.");
        }
        dropNullFromOptionals(schema);
        schema.put("type", "object");
        if (!schema.has("properties")) {
            schema.putObject("properties");
        }
        schema.put("additionalProperties", false);
        return schema;
    }

    /**
     * An optional (Optional-typed) property may be left out but is never sent as null: victools marks
     * it nullable, so the null alternative is removed again, at every depth.
     */
    private static void dropNullFromOptionals(JsonNode schema) {
        if (schema.isArray()) {
            schema.forEach(InputSchemas::dropNullFromOptionals);
            return;
        }
        if (!schema.isObject()) {
            return;
        }
        JsonNode properties = schema.get("properties");
        if (properties != null && properties.isObject()) {
            List<String> required = new java.util.ArrayList<>();
            schema.path("required").forEach(r -> required.add(r.asString()));
            for (Map.Entry<String, JsonNode> p : properties.properties()) {
                if (!required.contains(p.getKey()) && p.getValue().isObject()) {
                    withoutNull((ObjectNode) p.getValue());
                }
            }
        }
        for (Map.Entry<String, JsonNode> e : schema.properties()) {
            dropNullFromOptionals(e.getValue());
        }
    }

    private static void withoutNull(ObjectNode property) {
        JsonNode type = property.get("type");
        if (type != null && type.isArray()) {
            ArrayNode kept = Json.MAPPER.createArrayNode();
            type.forEach(t -> {
                if (!t.asString().equals("null")) {
                    kept.add(t);
                }
            });
            property.set("type", kept.size() == 1 ? kept.get(0) : kept);
        }
        JsonNode anyOf = property.get("anyOf");
        if (anyOf != null && anyOf.isArray()) {
            ArrayNode kept = Json.MAPPER.createArrayNode();
            anyOf.forEach(alt -> {
                if (!(alt.size() == 1 && alt.path("type").asString("").equals("null"))) {
                    kept.add(alt);
                }
            });
            if (kept.size() == 1 && kept.get(0).isObject()) {
                property.remove("anyOf");
                for (Map.Entry<String, JsonNode> e : kept.get(0).properties()) {
                    if (!property.has(e.getKey())) {
                        property.set(e.getKey(), e.getValue());
                    }
                }
            } else {
                property.set("anyOf", kept);
            }
        }
    }

    /** The operation name of a permitted record of a sealed input type. */
    static String operationName(Class<?> recordType) {
        JsonTypeName typeName = recordType.getAnnotation(JsonTypeName.class);
        if (typeName != null && !typeName.value().isBlank()) {
            return typeName.value();
        }
        return snakeCase(recordType.getSimpleName());
    }

    static Optional<String> typeDescription(Class<?> type) {
        JsonClassDescription d = type.getAnnotation(JsonClassDescription.class);
        return d == null || d.value().isBlank() ? Optional.empty() : Optional.of(d.value());
    }

    static String snakeCase(String name) {
        StringBuilder sb = new StringBuilder(name.length() + 4);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isUpperCase(c)) {
                if (i > 0 && (Character.isLowerCase(name.charAt(i - 1))
                        || (i + 1 < name.length() && Character.isLowerCase(name.charAt(i + 1))
                        && Character.isUpperCase(name.charAt(i - 1))))) {
                    sb.append('_');
                }
                sb.append(Character.toLowerCase(c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    static boolean containsKey(JsonNode node, String key) {
        if (node.isObject()) {
            if (node.has(key)) {
                return true;
            }
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                if (containsKey(e.getValue(), key)) {
                    return true;
                }
            }
        } else if (node.isArray()) {
            for (Iterator<JsonNode> it = node.iterator(); it.hasNext(); ) {
                if (containsKey(it.next(), key)) {
                    return true;
                }
            }
        }
        return false;
    }
}
