package dev.engram.server;

import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolDefinitionException;
import dev.engram.memory.CustomTool;
import dev.engram.memory.CustomToolSpec;
import dev.engram.tools.PythonSchemas;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Letta's {@code ToolCreate} and {@code ToolUpdate} bodies as a {@link CustomToolSpec}, and a custom tool as Letta's
 * {@code Tool}. A Python tool's schema is derived from its source ({@link PythonSchemas}) unless {@code json_schema} (or
 * {@code args_json_schema}) is given; a given schema is checked as a JSON schema, and its name must be a function of
 * the source. Every problem is a 400 (422 for a field of the wrong type) before anything is stored.
 */
final class ToolSources {
    /** The languages a tool's source may be in. */
    static final Set<String> SOURCE_TYPES = Set.of("python", "javascript");
    /** The note on requirements, which the sandbox cannot install. */
    static final String NOT_INSTALLED = "pip and npm requirements are recorded but never installed: the sandbox has no "
            + "network; a tool can import only what is installed on the server.";

    private ToolSources() {
    }

    /** The spec of a {@code ToolCreate} body. */
    static CustomToolSpec create(Body body) {
        String source = body.requiredString("source_code");
        String type = sourceType(body.string("source_type").orElse("python"));
        return spec(body, source, type, body.object("json_schema"), body.object("args_json_schema"), Optional.empty());
    }

    /** The spec of {@code current} changed by a {@code ToolUpdate} body. */
    static CustomToolSpec update(Body body, CustomTool current) {
        CustomToolSpec c = current.spec();
        String source = body.string("source_code").orElse(c.sourceCode());
        String type = sourceType(body.string("source_type").orElse(c.sourceType()));
        Optional<ObjectNode> schema = body.object("json_schema");
        Optional<ObjectNode> args = body.object("args_json_schema");
        boolean sourceChanged = !source.equals(c.sourceCode()) || !type.equals(c.sourceType());
        if (schema.isEmpty() && args.isEmpty() && !sourceChanged) {
            schema = Optional.of((ObjectNode) Body.JSON.readTree(c.jsonSchema()));
        } else if (schema.isEmpty() && args.isEmpty() && type.equals("javascript")) {
            schema = Optional.of((ObjectNode) Body.JSON.readTree(c.jsonSchema()));
        }
        return spec(body, source, type, schema, args, Optional.of(c));
    }

    private static CustomToolSpec spec(Body body, String source, String type, Optional<ObjectNode> given,
            Optional<ObjectNode> args, Optional<CustomToolSpec> current) {
        if (source.isBlank()) {
            throw ApiException.badRequest("source_code is empty: write the tool as one " + type + " function.");
        }
        ObjectNode schema = given.map(ObjectNode::deepCopy).orElseGet(() -> derived(source, type, args, current));
        String name = schema.path("name").asString("");
        if (!schema.path("name").isString() || name.isBlank()) {
            throw ApiException.badRequest("json_schema has no \"name\": give the function's name there.");
        }
        if (!defines(source, type, name)) {
            throw ApiException.badRequest("json_schema names '" + name + "', but the source defines no " + type
                    + " function of that name: the tool's name is its function's.");
        }
        String fromSchema = schema.path("description").asString("");
        String description = body.string("description")
                .orElseGet(() -> !fromSchema.isBlank() ? fromSchema : current.map(CustomToolSpec::description).orElse(""));
        schema.put("description", description);
        JsonNode parameters = schema.path("parameters");
        if (parameters.isMissingNode() || parameters.isNull()) {
            schema.set("parameters", Body.JSON.createObjectNode().put("type", "object"));
        } else if (!parameters.isObject()) {
            throw ApiException.badRequest("json_schema's \"parameters\" must be a JSON schema object.");
        }
        try {
            ToolDefinition.checked(name, description, (ObjectNode) schema.path("parameters"), SafetyTier.SIDE_EFFECTING);
        } catch (ToolDefinitionException | IllegalArgumentException e) {
            throw ApiException.badRequest("The tool's schema is refused: " + e.getMessage());
        }
        int limit = body.integer("return_char_limit").orElse(current.map(CustomToolSpec::returnCharLimit)
                .orElse(CustomToolSpec.DEFAULT_RETURN_CHAR_LIMIT));
        if (limit < 1 || limit > CustomToolSpec.MAX_RETURN_CHAR_LIMIT) {
            throw body.problem("less_than_equal", "return_char_limit must be 1 to " + CustomToolSpec.MAX_RETURN_CHAR_LIMIT,
                    "return_char_limit");
        }
        return new CustomToolSpec(name, description, type, source, schema.toString(),
                args.map(ObjectNode::toString).orElse(current.map(CustomToolSpec::argsJsonSchema).orElse("")),
                body.strings("tags").orElse(current.map(CustomToolSpec::tags).orElse(List.of())), limit,
                requirements(body, "pip_requirements", current.map(CustomToolSpec::pipRequirements)),
                requirements(body, "npm_requirements", current.map(CustomToolSpec::npmRequirements)),
                body.bool("default_requires_approval").orElse(current.map(CustomToolSpec::defaultRequiresApproval).orElse(false)),
                body.object("metadata_").map(ObjectNode::toString).orElse(current.map(CustomToolSpec::metadata).orElse("{}")));
    }

    /** The schema derived from the source (Python), or built around {@code args_json_schema}. */
    private static ObjectNode derived(String source, String type, Optional<ObjectNode> args, Optional<CustomToolSpec> current) {
        if (!type.equals("python")) {
            throw ApiException.badRequest("A " + type + " tool needs its json_schema (or args_json_schema): a schema is "
                    + "derived from Python source only.");
        }
        try {
            List<String> functions = PythonSchemas.functions(source);
            Optional<String> keep = current.map(CustomToolSpec::name).filter(functions::contains);
            if (args.isPresent()) {
                if (functions.isEmpty()) {
                    throw new ToolDefinitionException("The source defines no function at its top level.");
                }
                ObjectNode s = Body.JSON.createObjectNode().put("name", keep.orElse(functions.getLast()));
                s.put("description", "");
                s.set("parameters", args.get().deepCopy());
                return s;
            }
            return keep.map(n -> PythonSchemas.derive(source, n)).orElseGet(() -> PythonSchemas.derive(source));
        } catch (ToolDefinitionException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    private static boolean defines(String source, String type, String name) {
        if (type.equals("python")) {
            return PythonSchemas.functions(source).contains(name);
        }
        return source.matches("(?s).*\\bfunction\\s+" + Pattern.quote(name) + "\\s*\\(.*");
    }

    static String sourceType(String given) {
        String t = given.toLowerCase(Locale.ROOT);
        if (t.equals("typescript")) {
            throw ApiException.badRequest("TypeScript tools cannot run here (the sandbox has Node.js, no TypeScript "
                    + "compiler): write the tool in JavaScript (source_type javascript) or Python.");
        }
        if (!SOURCE_TYPES.contains(t)) {
            throw ApiException.badRequest("source_type '" + given + "' is not supported: use python or javascript.");
        }
        return t;
    }

    /** Letta's requirement list ({@code [{"name": ..., "version": ...}]}) as stored JSON. */
    private static String requirements(Body body, String field, Optional<String> current) {
        Optional<JsonNode> raw = body.raw(field);
        if (raw.isEmpty() || raw.get().isNull()) {
            return current.orElse("[]");
        }
        if (!raw.get().isArray()) {
            throw body.problem("list_type", "Input should be a valid list", field);
        }
        for (int i = 0; i < raw.get().size(); i++) {
            if (!raw.get().get(i).path("name").isString() || raw.get().get(i).path("name").asString().isBlank()) {
                throw body.problem("missing", "Each requirement needs a name", field, String.valueOf(i), "name");
            }
        }
        return raw.get().toString();
    }

    /** Letta's {@code Tool} of a custom tool. */
    static ObjectNode view(CustomTool t) {
        CustomToolSpec s = t.spec();
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("id", t.id());
        o.put("tool_type", "custom");
        o.put("name", s.name());
        o.put("description", s.description());
        o.put("source_type", s.sourceType());
        o.put("source_code", s.sourceCode());
        o.set("json_schema", Body.JSON.readTree(s.jsonSchema()));
        if (s.argsJsonSchema().isEmpty()) {
            o.putNull("args_json_schema");
        } else {
            o.set("args_json_schema", Body.JSON.readTree(s.argsJsonSchema()));
        }
        ArrayNode tags = o.putArray("tags");
        s.tags().forEach(tags::add);
        o.put("return_char_limit", s.returnCharLimit());
        o.set("pip_requirements", nullIfEmpty(s.pipRequirements()));
        o.set("npm_requirements", nullIfEmpty(s.npmRequirements()));
        o.put("default_requires_approval", s.defaultRequiresApproval());
        o.put("enable_parallel_execution", false);
        o.put("created_by_id", t.userId());
        o.put("last_updated_by_id", t.userId());
        o.set("metadata_", Body.JSON.readTree(s.metadata()));
        o.putNull("project_id");
        o.put("created_at", t.createdAt().toString());
        o.put("updated_at", t.updatedAt().toString());
        return o;
    }

    private static JsonNode nullIfEmpty(String json) {
        JsonNode n = Body.JSON.readTree(json);
        return n.isArray() && n.isEmpty() ? Body.JSON.nullNode() : n;
    }
}
