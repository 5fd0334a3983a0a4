package dev.engram.framework;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
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
            if (e.getCause() instanceof LinkageError) {
                throw new ToolDefinitionException("Generated class " + generated + " was compiled against another version of "
                        + "engram-framework; recompile " + type.getName() + " so that it is generated again (with Maven: "
                        + "mvn clean compile).", e.getCause());
            }
            throw new ToolDefinitionException("Generated class " + generated + " failed: " + e.getCause(), e.getCause());
        }
    }

    /**
     * One parameter of a {@code @Tool} method, as the processor saw it.
     *
     * @param jsonName    the argument's name (snake_case)
     * @param type        the parameter's (generic) type
     * @param description its {@code @param} javadoc, or {@code null}
     */
    public record Parameter(String jsonName, Type type, String description) {
        public Parameter {
            Objects.requireNonNull(jsonName, "jsonName");
            Objects.requireNonNull(type, "type");
        }
    }

    /** A parameter of a generated tool. */
    public static Parameter param(String jsonName, Type type, String description) {
        return new Parameter(jsonName, type, description);
    }

    /** A tool from a {@code @Tool} method; its schema is generated from the parameters like a typed tool's. */
    public static DynamicTool tool(String name, String description, List<Parameter> parameters, SafetyTier tier,
            long timeoutMillis, Truncation truncation, Invoker invoker) {
        ToolInfo info = new ToolInfo(name, description, tier, Duration.ofMillis(timeoutMillis), truncation);
        ObjectNode schema = InputSchemas.forParameters(name, parameters);
        return new AnnotatedTool(info, schema, Objects.requireNonNull(invoker));
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
    private record AnnotatedTool(ToolInfo info, ObjectNode schema, Invoker invoker) implements DynamicTool, ParsedArgumentsTool {
        @Override
        public String name() {
            return info.name();
        }

        @Override
        public String description() {
            return info.description();
        }

        @Override
        public SafetyTier safetyTier() {
            return info.tier();
        }

        @Override
        public Duration timeout() {
            return info.timeout();
        }

        @Override
        public Truncation truncation() {
            return info.truncation();
        }

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
            return (String) runParsed(arguments, context).value();
        }

        @Override
        public ToolOutput run(String argumentsJson, ToolContext context) throws Exception {
            try {
                return runParsed(Json.MAPPER.readTree(argumentsJson), context);
            } catch (JacksonException e) {
                throw new InvalidArgumentsException("arguments are not valid JSON: " + e.getOriginalMessage());
            }
        }

        /** A method returning a {@link ToolOutput} states its effects; any other output has none. */
        @Override
        public ToolOutput runParsed(JsonNode arguments, ToolContext context) throws Exception {
            Object output = invoker.invoke(arguments, context);
            return output instanceof ToolOutput o ? o.withValue(TypedTool.render(o.value())) : ToolOutput.of(TypedTool.render(output));
        }

        @Override
        public String toString() {
            return "AnnotatedTool[" + info.name() + "]";
        }
    }
}
