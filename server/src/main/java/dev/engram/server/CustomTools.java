package dev.engram.server;

import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentRuntime;
import dev.engram.agents.ToolRule;
import dev.engram.agents.ToolRules;
import dev.engram.agents.UserTools;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.memory.CustomTool;
import dev.engram.memory.CustomToolSpec;
import dev.engram.memory.MemoryStore;
import dev.engram.tools.CodeLanguage;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.SourceFunctions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * Each user's tools written from source, and the user's MCP servers' tools, as that user's own tools ({@link UserTools}):
 * a custom tool runs its function in the sandbox through the operator's code runner ({@code engram serve --code}),
 * its output cut to its {@code return_char_limit}, asking first when it has {@code default_requires_approval}. Without
 * the runner it is offered all the same and a call fails saying how to enable it. An MCP tool of the same name wins.
 */
final class CustomTools implements UserTools {
    /** Why nothing runs without the operator's opt-in, and how to give it. */
    static final String NO_RUNNER = "Running tool source code is off on this server: the operator enables it by starting "
            + "engram serve with --code (Python and JavaScript in the bubblewrap sandbox, no network).";

    private final MemoryStore store;
    private final UserTools mcp;
    private volatile AgentRuntime runtime;

    CustomTools(MemoryStore store, UserTools mcp) {
        this.store = store;
        this.mcp = mcp;
    }

    /** The runtime whose agents use these tools (its code runner runs them; its agents are re-tooled on changes). */
    void bind(AgentRuntime agents) {
        this.runtime = agents;
    }

    /** The operator's code runner, if code execution is enabled. */
    Optional<CodeRunner> runner() {
        AgentRuntime r = runtime;
        return r == null ? Optional.empty() : r.codeRunner();
    }

    @Override
    public Optional<DynamicTool> find(String userId, String name) {
        Optional<DynamicTool> own = mcp.find(userId, name);
        if (own.isPresent()) {
            return own;
        }
        return store.customTools().byName(userId, name).map(this::tool);
    }

    @Override
    public List<DynamicTool> list(String userId) {
        List<DynamicTool> out = new ArrayList<>(mcp.list(userId));
        store.customTools().list(userId).stream().filter(t -> out.stream().noneMatch(o -> o.name().equals(t.name())))
                .map(this::tool).forEach(out::add);
        return out.stream().sorted(Comparator.comparing(DynamicTool::name)).toList();
    }

    /** The stored tool as a tool of the model. */
    DynamicTool tool(CustomTool t) {
        CustomToolSpec s = t.spec();
        ObjectNode schema = (ObjectNode) Body.JSON.readTree(s.jsonSchema());
        ObjectNode parameters = schema.path("parameters").isObject() ? (ObjectNode) schema.path("parameters")
                : Body.JSON.createObjectNode().put("type", "object");
        Optional<CodeRunner> runner = runner();
        if (runner.isEmpty()) {
            return new Unavailable(s.name(), s.description(), parameters);
        }
        return SourceFunctions.tool(runner.get(), language(s.sourceType()), s.name(), s.description(), parameters,
                s.sourceCode(), s.defaultRequiresApproval(), s.returnCharLimit());
    }

    /** The code runner's language of a {@code source_type}. */
    static CodeLanguage language(String sourceType) {
        return sourceType.equalsIgnoreCase("javascript") ? CodeLanguage.JAVASCRIPT : CodeLanguage.PYTHON;
    }

    /**
     * After a tool of {@code userId} was renamed ({@code newName} present) or deleted: the user's agents that had it
     * get the new name, or lose it and the tool rules naming it; loaded agents are re-tooled.
     */
    void changed(String userId, String oldName, Optional<String> newName) {
        AgentRuntime r = runtime;
        if (r == null) {
            return;
        }
        for (AgentDefinition d : r.list(userId)) {
            if (!d.tools().contains(oldName)) {
                continue;
            }
            r.modify(userId, d.id(), def -> {
                List<String> tools = new ArrayList<>();
                for (String n : def.tools()) {
                    if (!n.equals(oldName)) {
                        tools.add(n);
                    } else {
                        newName.ifPresent(tools::add);
                    }
                }
                List<ToolRule> rules = def.toolRules().stream().filter(rule -> !names(rule).contains(oldName)).toList();
                return def.toBuilder().tools(tools).toolRules(rules).build();
            });
        }
        r.retool(userId);
    }

    /**
     * Refuses to rename a tool that a tool rule of one of the user's agents names (as detaching it is refused).
     *
     * @throws ApiException 409 naming the agent
     */
    void checkRename(String userId, String oldName) {
        AgentRuntime r = runtime;
        if (r == null) {
            return;
        }
        for (AgentDefinition d : r.list(userId)) {
            if (d.toolRules().stream().anyMatch(rule -> names(rule).contains(oldName))) {
                throw ApiException.conflict("Tool '" + oldName + "' is named by a tool rule of agent '" + d.id() + "'; change "
                        + "the rules (PATCH /v1/agents/" + d.id() + " with tool_rules) before renaming it. Nothing changed.");
            }
        }
    }

    private static List<String> names(ToolRule rule) {
        return ToolRules.toJson(rule).findValuesAsString("tool_name");
    }

    /** A custom tool on a server that runs no code: offered, and each call says how to enable it. */
    record Unavailable(String name, String description, ObjectNode schema) implements DynamicTool {
        @Override
        public ObjectNode parametersSchema() {
            return schema.deepCopy();
        }

        @Override
        public SafetyTier safetyTier() {
            return SafetyTier.READ_ONLY;
        }

        @Override
        public String execute(String argumentsJson, ToolContext context) {
            throw new ToolException("Tool '" + name + "' did not run. " + NO_RUNNER + " Tell the user this tool is unavailable.");
        }
    }

    /** Whether {@code name} is taken by one of the runtime's own tools. */
    boolean builtin(String name) {
        AgentRuntime r = runtime;
        return r != null && r.availableTools().contains(name);
    }
}
