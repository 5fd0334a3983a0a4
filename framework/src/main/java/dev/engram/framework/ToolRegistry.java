package dev.engram.framework;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Predicate;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tools an agent (or a whole application) can call, by unique name.
 *
 * <p>Thread-safe: registration and removal take effect at once and are visible to the next lookup,
 * so a tool registered at run time is offered to the next model call. Each tool's schema is compiled
 * into a validator when it is registered, so a tool with an invalid schema is rejected there and not
 * at its first call.
 */
public final class ToolRegistry {
    /** Sorted by name; replaced wholesale on each change so readers never lock. */
    private volatile Map<String, RegisteredTool> tools = Map.of();

    private ToolRegistry() {
    }

    /** An empty registry. */
    public static ToolRegistry create() {
        return new ToolRegistry();
    }

    /**
     * Registers a tool.
     *
     * @throws ToolDefinitionException if the name is invalid or taken, the description is blank, or the
     *                                 schema is not a valid JSON Schema for an object
     */
    public ToolRegistry register(DynamicTool tool) {
        Objects.requireNonNull(tool, "tool");
        RegisteredTool entry = RegisteredTool.of(tool);
        synchronized (this) {
            RegisteredTool existing = tools.get(entry.tool().name());
            if (existing != null) {
                throw new ToolDefinitionException("A tool named '" + tool.name() + "' is already registered ("
                        + describe(existing.tool()) + "); cannot also register " + describe(tool)
                        + ". Unregister the first or give the second another name.");
            }
            Map<String, RegisteredTool> next = new TreeMap<>(tools);
            next.put(tool.name(), entry);
            tools = Collections.unmodifiableMap(next);
        }
        return this;
    }

    /** Wraps a typed tool ({@link DynamicTool#from(AiTool)}) and registers it. */
    public ToolRegistry register(AiTool<?, ?> tool) {
        return register(DynamicTool.from(tool));
    }

    /** Registers each tool in order; stops at the first one rejected, keeping those before it. */
    public ToolRegistry registerAll(Collection<? extends DynamicTool> toRegister) {
        toRegister.forEach(this::register);
        return this;
    }

    /**
     * Registers the {@link Tool @Tool} methods of {@code target}, through the class the annotation
     * processor generated for it ({@code Target_Tools}).
     *
     * @throws ToolDefinitionException if no generated class exists, e.g. because the processor did not run
     */
    public ToolRegistry registerAnnotated(Object target) {
        return registerAll(GeneratedTools.load(target));
    }

    /**
     * Loads every {@link ToolPlugin} visible to {@code loader} through {@link ServiceLoader} and
     * registers their tools.
     *
     * @return how many tools were registered
     */
    public int registerPlugins(ClassLoader loader) {
        int count = 0;
        for (ToolPlugin plugin : ServiceLoader.load(ToolPlugin.class, loader)) {
            List<DynamicTool> pluginTools = plugin.tools();
            registerAll(pluginTools);
            count += pluginTools.size();
        }
        return count;
    }

    /** Removes the tool of that name; returns whether there was one. */
    public synchronized boolean unregister(String name) {
        if (!tools.containsKey(name)) {
            return false;
        }
        Map<String, RegisteredTool> next = new TreeMap<>(tools);
        next.remove(name);
        tools = Collections.unmodifiableMap(next);
        return true;
    }

    public Optional<DynamicTool> find(String name) {
        RegisteredTool entry = tools.get(name);
        return entry == null ? Optional.empty() : Optional.of(entry.tool());
    }

    /** All tools, sorted by name. */
    public List<DynamicTool> list() {
        return tools.values().stream().map(RegisteredTool::tool).toList();
    }

    /** The names of all tools, sorted. */
    public List<String> names() {
        return List.copyOf(tools.keySet());
    }

    /** The definitions of all tools, sorted by name. */
    public List<ToolDefinition> definitions() {
        return tools.values().stream().map(e -> ToolDefinition.of(e.tool())).toList();
    }

    /** The definitions of every tool, as a provider's {@code tools} array. */
    public ArrayNode toolsJson(ToolFormat format) {
        return toolsJson(format, ToolPolicy.allowAll());
    }

    /**
     * The definitions of the tools a policy permits, as the provider's {@code tools} array: for
     * {@link ToolFormat#GEMINI}, one element {@code {"functionDeclarations": [...]}} (none when no tool
     * is permitted); for the others, one element per tool.
     */
    public ArrayNode toolsJson(ToolFormat format, ToolPolicy policy) {
        Predicate<String> permitted = policy::permits;
        ArrayNode out = Json.MAPPER.createArrayNode();
        List<ObjectNode> items = new ArrayList<>();
        for (RegisteredTool e : tools.values()) {
            if (permitted.test(e.tool().name())) {
                items.add(ToolDefinition.of(e.tool()).toJson(format));
            }
        }
        if (format == ToolFormat.GEMINI) {
            if (!items.isEmpty()) {
                out.addObject().putArray("functionDeclarations").addAll(items);
            }
        } else {
            out.addAll(items);
        }
        return out;
    }

    Optional<RegisteredTool> entry(String name) {
        return Optional.ofNullable(tools.get(name));
    }

    private static String describe(DynamicTool tool) {
        return tool.toString().contains("@") ? tool.getClass().getName() : tool.toString();
    }

    /** A registered tool with its compiled argument validator. */
    record RegisteredTool(DynamicTool tool, ArgumentValidator validator) {
        static RegisteredTool of(DynamicTool tool) {
            ToolNames.requireValid(tool.name());
            ToolNames.requireDescription(tool.name(), tool.description());
            if (tool instanceof TypedTool<?, ?> typed) {
                return new RegisteredTool(tool, typed.validator());
            }
            ObjectNode schema = tool.parametersSchema();
            if (schema == null || !"object".equals(schema.path("type").asString(""))) {
                throw new ToolDefinitionException("Tool '" + tool.name()
                        + "' must declare an object schema for its arguments (\"type\": \"object\").");
            }
            if (InputSchemas.containsKey(schema, "$ref")) {
                throw new ToolDefinitionException("Tool '" + tool.name()
                        + "' has a schema with $ref; inline every definition so every provider accepts it.");
            }
            return new RegisteredTool(tool, ArgumentValidator.forSchema(schema));
        }
    }
}
