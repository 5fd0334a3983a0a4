package dev.engram.framework;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runtime support for the classes the {@link Tool @Tool} annotation processor generates. Not meant
 * to be called by hand; its signatures are kept stable for generated code.
 */
public final class GeneratedTools {
    private GeneratedTools() {
    }

    /** The body of a generated tool: reads its parameters from the arguments and calls the method. */
    @FunctionalInterface
    public interface Invoker {
        Object invoke(JsonNode arguments, ToolContext context) throws Exception;
    }

    /** The name of the class generated for {@code binaryName}: {@code a.b.Outer$Inner} gives {@code a.b.Outer_Inner_Tools}. */
    public static String generatedClassName(String binaryName) {
        return binaryName.replace('$', '_') + "_Tools";
    }

    /** Finds the class generated for {@code target}'s {@code @Tool} methods and builds its tools. */
    @SuppressWarnings("unchecked")
    static List<DynamicTool> load(Object target) {
        Objects.requireNonNull(target, "target");
        Class<?> type = target.getClass();
        String generated = generatedClassName(type.getName());
        Class<?> tools;
        try {
            tools = Class.forName(generated, true, type.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new ToolDefinitionException("No generated tools for " + type.getName() + " (expected class "
                    + generated + "). Put engram-framework on the compiler's annotation processor path, "
                    + "or compile with -proc:full, so that its @Tool methods are processed.", e);
        }
        try {
            Method of = tools.getMethod("of", type);
            return (List<DynamicTool>) of.invoke(null, target);
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new ToolDefinitionException("Generated class " + generated + " does not match " + type.getName()
                    + "; recompile both.", e);
        } catch (InvocationTargetException e) {
            throw new ToolDefinitionException("Generated class " + generated + " failed: " + e.getCause(), e.getCause());
        }
    }

    /** A tool whose schema was generated at compile time. */
    public static DynamicTool tool(String name, String description, String schemaJson, SafetyTier tier,
            long timeoutMillis, Truncation truncation, Invoker invoker) {
        ToolNames.requireValid(name);
        ToolNames.requireDescription(name, description);
        ObjectNode schema = (ObjectNode) Json.MAPPER.readTree(schemaJson);
        return new AnnotatedTool(name, description, schema, Objects.requireNonNull(tier),
                Duration.ofMillis(timeoutMillis), Objects.requireNonNull(truncation), Objects.requireNonNull(invoker));
    }

    /** Reads parameter {@code name} as {@code type}. */
    public static <T> T arg(JsonNode arguments, String name, Class<T> type) {
        try {
            return Json.MAPPER.treeToValue(arguments.path(name), type);
        } catch (JacksonException e) {
            throw new InvalidArgumentsException("arguments invalid: field '" + name + "': " + e.getOriginalMessage());
        }
    }

    /** Reads parameter {@code name} as a generic type such as {@code List<String>}. */
    public static <T> T arg(JsonNode arguments, String name, TypeReference<T> type) {
        try {
            return Json.MAPPER.treeToValue(arguments.path(name), Json.MAPPER.getTypeFactory().constructType(type));
        } catch (JacksonException e) {
            throw new InvalidArgumentsException("arguments invalid: field '" + name + "': " + e.getOriginalMessage());
        }
    }

    /** A tool generated from a {@code @Tool} method. */
    private record AnnotatedTool(String name, String description, ObjectNode schema, SafetyTier safetyTier,
            Duration timeout, Truncation truncation, Invoker invoker) implements DynamicTool, ParsedArgumentsTool {

        @Override
        public ObjectNode parametersSchema() {
            return schema;
        }

        @Override
        public String execute(String argumentsJson, ToolContext context) throws Exception {
            JsonNode args;
            try {
                args = Json.MAPPER.readTree(argumentsJson);
            } catch (JacksonException e) {
                throw new InvalidArgumentsException("arguments are not valid JSON: " + e.getOriginalMessage());
            }
            return executeParsed(args, context);
        }

        @Override
        public String executeParsed(JsonNode arguments, ToolContext context) throws Exception {
            return TypedTool.render(invoker.invoke(arguments, context));
        }

        @Override
        public String toString() {
            return "AnnotatedTool[" + name + "]";
        }
    }
}
