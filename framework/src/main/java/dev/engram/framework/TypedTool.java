package dev.engram.framework;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** A typed {@link AiTool} seen as a {@link DynamicTool}: schema from the input type, JSON in and out. */
final class TypedTool<I, O> implements DynamicTool, ParsedArgumentsTool {
    static final String OPERATION = "operation";

    private final AiTool<I, O> tool;
    private final String name;
    private final String description;
    private final SafetyTier tier;
    private final Duration timeout;
    private final Truncation truncation;
    /** Operation name to record type; empty for a single-record input. */
    private final Map<String, Class<?>> operations;
    /** The schema and its validator; generated on first use when the tool was made with {@link #deferred}. */
    private volatile Shape shape;

    /** The arguments' schema and the validator compiled from it. */
    private record Shape(ObjectNode schema, ArgumentValidator validator) {
    }

    private TypedTool(AiTool<I, O> tool, boolean deferred) {
        this.tool = tool;
        this.name = ToolNames.requireValid(tool.name());
        this.description = ToolNames.requireDescription(name, tool.description());
        this.tier = Objects.requireNonNull(tool.safetyTier(), () -> "tool '" + name + "' returned a null safety tier");
        this.timeout = tool.timeout();
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new ToolDefinitionException("Tool '" + name + "' has timeout " + timeout + "; give it a positive duration.");
        }
        this.truncation = Objects.requireNonNull(tool.truncation(), () -> "tool '" + name + "' returned a null truncation");
        Class<I> input = tool.inputType();
        if (input == null) {
            throw new ToolDefinitionException("Tool '" + name + "' has no input type.");
        }
        if (input.isRecord()) {
            this.operations = Map.of();
        } else if (input.isSealed()) {
            this.operations = operationsOf(name, input);
        } else {
            throw new ToolDefinitionException("Tool '" + name + "' has input type " + input.getName()
                    + ", which is neither a record nor a sealed interface of records.");
        }
        if (!deferred) {
            this.shape = generate();
        }
    }

    static DynamicTool wrap(AiTool<?, ?> tool) {
        Objects.requireNonNull(tool, "tool");
        return new TypedTool<>(tool, false);
    }

    /** {@link #wrap}, with the schema generated when first asked for (see {@link DynamicTool#deferred}). */
    static DynamicTool deferred(AiTool<?, ?> tool) {
        Objects.requireNonNull(tool, "tool");
        return new TypedTool<>(tool, true);
    }

    /** Whether the schema has been generated (for tests). */
    boolean generated() {
        return shape != null;
    }

    private Shape shape() {
        Shape s = shape;
        if (s == null) {
            synchronized (this) {
                s = shape;
                if (s == null) {
                    s = generate();
                    shape = s;
                }
            }
        }
        return s;
    }

    /** The schema from the input type (a record's, or the union of a sealed interface's operations) and its validator. */
    private Shape generate() {
        if (operations.isEmpty()) {
            ObjectNode schema = InputSchemas.forRecord(tool.inputType());
            return new Shape(schema, ArgumentValidator.forSchema(schema));
        }
        Map<String, ObjectNode> perOperation = new LinkedHashMap<>();
        operations.forEach((op, type) -> perOperation.put(op, InputSchemas.forRecord(type)));
        ObjectNode schema = unionSchema(name, perOperation, operations);
        return new Shape(schema, new OperationValidator(ArgumentValidator.forSchema(schema), perOperation));
    }

    private static Map<String, Class<?>> operationsOf(String toolName, Class<?> sealed) {
        Map<String, Class<?>> ops = new LinkedHashMap<>();
        for (Class<?> sub : sealed.getPermittedSubclasses()) {
            if (!sub.isRecord()) {
                throw new ToolDefinitionException("Tool '" + toolName + "': operation type " + sub.getName()
                        + " of sealed input " + sealed.getName() + " is not a record.");
            }
            String op = InputSchemas.operationName(sub);
            Class<?> previous = ops.put(op, sub);
            if (previous != null) {
                throw new ToolDefinitionException("Tool '" + toolName + "': operations " + previous.getName() + " and "
                        + sub.getName() + " are both named '" + op + "'; rename one or set @JsonTypeName.");
            }
        }
        if (ops.isEmpty()) {
            throw new ToolDefinitionException("Tool '" + toolName + "': sealed input " + sealed.getName() + " permits no records.");
        }
        return java.util.Collections.unmodifiableMap(ops);
    }

    /**
     * One object schema: an {@code operation} enum plus the union of the operations' properties.
     * A property shared by several operations must have the same schema in each.
     */
    private static ObjectNode unionSchema(String toolName, Map<String, ObjectNode> perOperation,
            Map<String, Class<?>> operations) {
        ObjectNode union = Json.MAPPER.createObjectNode();
        union.put("type", "object");
        ObjectNode properties = union.putObject("properties");
        ObjectNode operation = properties.putObject(OPERATION);
        operation.put("type", "string");
        ArrayNode names = operation.putArray("enum");
        StringBuilder opDescription = new StringBuilder("The operation to perform:");
        Map<String, List<String>> usedBy = new LinkedHashMap<>();
        Map<String, JsonNode> fieldSchemas = new LinkedHashMap<>();
        for (Map.Entry<String, ObjectNode> e : perOperation.entrySet()) {
            String op = e.getKey();
            names.add(op);
            opDescription.append(' ').append(op);
            InputSchemas.typeDescription(operations.get(op)).ifPresent(d -> opDescription.append(" (").append(d).append(')'));
            opDescription.append(';');
            for (Map.Entry<String, JsonNode> p : e.getValue().path("properties").properties()) {
                String field = p.getKey();
                if (field.equals(OPERATION)) {
                    throw new ToolDefinitionException("Tool '" + toolName + "': operation '" + op
                            + "' has a field named 'operation', which is reserved for choosing the operation.");
                }
                JsonNode known = fieldSchemas.get(field);
                if (known != null && !withoutDescription(known).equals(withoutDescription(p.getValue()))) {
                    throw new ToolDefinitionException("Tool '" + toolName + "': field '" + field
                            + "' has different types in operations " + usedBy.get(field) + " and '" + op
                            + "'; give the fields distinct names or the same type.");
                }
                fieldSchemas.putIfAbsent(field, p.getValue());
                usedBy.computeIfAbsent(field, k -> new ArrayList<>()).add(op);
            }
        }
        opDescription.setLength(opDescription.length() - 1);
        operation.put("description", opDescription.append('.').toString());
        for (Map.Entry<String, JsonNode> f : fieldSchemas.entrySet()) {
            ObjectNode fieldSchema = (ObjectNode) f.getValue().deepCopy();
            List<String> ops = usedBy.get(f.getKey());
            if (ops.size() < perOperation.size()) {
                String base = fieldSchema.path("description").asString("");
                String suffix = "Used by: " + String.join(", ", ops) + ".";
                fieldSchema.put("description", base.isBlank() ? suffix : base.strip() + (base.strip().endsWith(".") ? " " : ". ") + suffix);
            }
            properties.set(f.getKey(), fieldSchema);
        }
        union.putArray("required").add(OPERATION);
        union.put("additionalProperties", false);
        return union;
    }

    private static JsonNode withoutDescription(JsonNode schema) {
        if (!schema.isObject()) {
            return schema;
        }
        ObjectNode copy = ((ObjectNode) schema).deepCopy();
        copy.remove("description");
        return copy;
    }

    ArgumentValidator validator() {
        return shape().validator();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public ObjectNode parametersSchema() {
        return shape().schema();
    }

    @Override
    public SafetyTier safetyTier() {
        return tier;
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    @Override
    public Truncation truncation() {
        return truncation;
    }

    @Override
    public boolean runsInline() {
        return tool.runsInline();
    }

    @Override
    public String execute(String argumentsJson, ToolContext context) throws Exception {
        return executeParsed(parse(argumentsJson), context);
    }

    @Override
    public ToolOutput run(String argumentsJson, ToolContext context) throws Exception {
        return runParsed(parse(argumentsJson), context);
    }

    @Override
    public Optional<String> userMessageArgument() {
        Optional<String> argument = tool.userMessageArgument();
        return argument == null ? Optional.empty() : argument;
    }

    @Override
    public String executeParsed(JsonNode arguments, ToolContext context) throws Exception {
        return (String) runParsed(arguments, context).value();
    }

    /** The fast path of the pipeline, which has parsed and validated the arguments already. */
    @Override
    public ToolOutput runParsed(JsonNode arguments, ToolContext context) throws Exception {
        I input = toInput(arguments);
        O output = tool.execute(input, context);
        return output instanceof ToolOutput o ? o.withValue(render(o.value())) : ToolOutput.of(render(output));
    }

    @Override
    public Optional<String> approvalPreview(String argumentsJson, ToolContext context) throws Exception {
        return approvalPreviewParsed(parse(argumentsJson), context);
    }

    @Override
    public Optional<String> approvalPreviewParsed(JsonNode arguments, ToolContext context) throws Exception {
        Optional<String> preview = tool.approvalPreview(toInput(arguments), context);
        return preview == null ? Optional.empty() : preview;
    }

    @Override
    public Optional<String> approvalScope(String argumentsJson) throws Exception {
        return approvalScopeParsed(parse(argumentsJson));
    }

    @Override
    public Optional<String> approvalScopeParsed(JsonNode arguments) {
        Optional<String> scope = tool.approvalScope(toInput(arguments));
        return scope == null ? Optional.empty() : scope;
    }

    private static JsonNode parse(String json) {
        try {
            return Json.MAPPER.readTree(json);
        } catch (JacksonException e) {
            throw new InvalidArgumentsException("arguments are not valid JSON: " + e.getOriginalMessage());
        }
    }

    private I toInput(JsonNode arguments) {
        Class<?> target;
        JsonNode fields = arguments;
        if (operations.isEmpty()) {
            target = tool.inputType();
        } else {
            String op = arguments.path(OPERATION).asString("");
            target = operations.get(op);
            if (target == null) {
                throw new InvalidArgumentsException("Tool '" + name + "' arguments invalid: field 'operation': expected one of "
                        + operations.keySet() + ", got " + Json.preview(arguments.path(OPERATION)));
            }
            fields = withoutOperation(arguments);
        }
        try {
            return tool.inputType().cast(Json.MAPPER.treeToValue(fields, target));
        } catch (JacksonException e) {
            throw new InvalidArgumentsException("Tool '" + name + "' arguments invalid: " + e.getOriginalMessage());
        }
    }

    /** A copy of the arguments without the operation selector (Jackson's {@code without} mutates). */
    private static ObjectNode withoutOperation(JsonNode arguments) {
        ObjectNode copy = ((ObjectNode) arguments).deepCopy();
        copy.remove(OPERATION);
        return copy;
    }

    static String render(Object output) {
        if (output == null) {
            return "OK";
        }
        if (output instanceof CharSequence text) {
            return text.toString();
        }
        return Json.MAPPER.writeValueAsString(output);
    }

    @Override
    public String toString() {
        return "TypedTool[" + name + " -> " + tool.getClass().getName() + "]";
    }

    /** Validates the union first, then the chosen operation's own required and allowed fields. */
    private record OperationValidator(ArgumentValidator union, Map<String, ObjectNode> perOperationSchemas,
            Map<String, ArgumentValidator> perOperation) implements ArgumentValidator {

        OperationValidator(ArgumentValidator union, Map<String, ObjectNode> perOperationSchemas) {
            this(union, perOperationSchemas, compile(perOperationSchemas));
        }

        private static Map<String, ArgumentValidator> compile(Map<String, ObjectNode> schemas) {
            Map<String, ArgumentValidator> m = new LinkedHashMap<>();
            schemas.forEach((op, s) -> m.put(op, ArgumentValidator.forSchema(s)));
            return java.util.Collections.unmodifiableMap(m);
        }

        @Override
        public List<String> problems(JsonNode arguments) {
            List<String> problems = union.problems(arguments);
            if (!problems.isEmpty()) {
                return problems;
            }
            String op = arguments.path(OPERATION).asString("");
            ArgumentValidator forOp = perOperation.get(op);
            List<String> opProblems = forOp.problems(withoutOperation(arguments));
            List<String> out = new ArrayList<>(opProblems.size());
            for (String p : opProblems) {
                out.add(p.startsWith("unknown field")
                        ? p.replaceFirst("^unknown field ('[^']*')(;.*)?$", "field $1 is not used by operation '" + op + "'$2")
                        : p + " (operation '" + op + "')");
            }
            return out;
        }
    }
}
