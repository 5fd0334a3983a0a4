package dev.engram.agents;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@link ToolRule}s in Letta's JSON shapes ({@code InitToolRule}, {@code ChildToolRule}, ... of Letta's
 * V1 API): {@code {"type": "run_first", "tool_name": "..."}} and so on. Reading ignores
 * {@code prompt_template} (Letta ignores it too) and refuses unknown types and missing fields with a
 * message naming the rule.
 */
public final class ToolRules {
    private static final TypeReference<Map<String, Object>> ARGS = new TypeReference<>() {
    };

    private ToolRules() {
    }

    /**
     * Reads a JSON array of rules.
     *
     * @throws IllegalArgumentException if the text is not a JSON array of valid rules, saying which one is wrong
     */
    public static List<ToolRule> parse(String jsonArray) {
        JsonNode node;
        try {
            node = Heartbeats.JSON.readTree(jsonArray);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("tool rules are not valid JSON: " + e.getOriginalMessage(), e);
        }
        return parse(node);
    }

    /** Reads a JSON array of rules (a missing or null node is no rules). */
    public static List<ToolRule> parse(JsonNode array) {
        if (array == null || array.isMissingNode() || array.isNull()) {
            return List.of();
        }
        if (!array.isArray()) {
            throw new IllegalArgumentException("tool rules must be a JSON array, got " + array.getNodeType());
        }
        List<ToolRule> rules = new ArrayList<>();
        int i = 0;
        for (JsonNode rule : array) {
            i++;
            try {
                rules.add(rule(rule));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("tool rule " + i + " is invalid: " + e.getMessage(), e);
            }
        }
        return List.copyOf(rules);
    }

    /** Reads one rule. */
    public static ToolRule rule(JsonNode o) {
        if (!o.isObject()) {
            throw new IllegalArgumentException("a tool rule must be a JSON object");
        }
        String tool = o.path("tool_name").asString("");
        String type = o.path("type").asString("");
        return switch (type) {
            case "run_first" -> new ToolRule.Init(tool, args(o.path("args")));
            case "exit_loop" -> new ToolRule.Terminal(tool);
            case "continue_loop" -> new ToolRule.Continue(tool);
            case "constrain_child_tools" -> {
                Map<String, Map<String, Object>> childArgs = new LinkedHashMap<>();
                for (JsonNode node : o.path("child_arg_nodes")) {
                    childArgs.put(node.path("name").asString(""), args(node.path("args")));
                }
                yield new ToolRule.Child(tool, strings(o.path("children")), childArgs);
            }
            case "parent_last_tool" -> new ToolRule.Parent(tool, strings(o.path("children")));
            case "conditional" -> {
                Map<String, String> mapping = new LinkedHashMap<>();
                o.path("child_output_mapping").properties().forEach(e -> mapping.put(e.getKey(), e.getValue().asString("")));
                String defaultChild = o.path("default_child").asString("");
                yield new ToolRule.Conditional(tool, defaultChild.isBlank() ? Optional.empty() : Optional.of(defaultChild),
                        mapping, o.path("require_output_mapping").asBoolean(false));
            }
            case "max_count_per_step" -> {
                if (!o.path("max_count_limit").canConvertToInt()) {
                    throw new IllegalArgumentException("the max-count rule of '" + tool + "' needs an integer \"max_count_limit\"");
                }
                yield new ToolRule.MaxCountPerStep(tool, o.path("max_count_limit").asInt());
            }
            case "required_before_exit" -> new ToolRule.RequiredBeforeExit(tool);
            case "requires_approval" -> new ToolRule.RequiresApproval(tool);
            default -> throw new IllegalArgumentException("unknown tool rule type \"" + type + "\"; known: run_first, "
                    + "exit_loop, continue_loop, constrain_child_tools, parent_last_tool, conditional, max_count_per_step, "
                    + "required_before_exit, requires_approval");
        };
    }

    /** The rules as a JSON array in Letta's shapes. */
    public static ArrayNode toJson(List<ToolRule> rules) {
        ArrayNode out = Heartbeats.JSON.createArrayNode();
        rules.forEach(r -> out.add(toJson(r)));
        return out;
    }

    /** One rule in Letta's shape. */
    public static ObjectNode toJson(ToolRule rule) {
        ObjectNode o = Heartbeats.JSON.createObjectNode();
        o.put("tool_name", rule.tool());
        o.put("type", rule.type());
        switch (rule) {
            case ToolRule.Init i -> {
                if (!i.args().isEmpty()) {
                    o.set("args", Heartbeats.JSON.valueToTree(i.args()));
                }
            }
            case ToolRule.Child c -> {
                ArrayNode children = o.putArray("children");
                c.children().forEach(children::add);
                if (!c.childArgs().isEmpty()) {
                    ArrayNode nodes = o.putArray("child_arg_nodes");
                    c.childArgs().forEach((name, args) -> nodes.addObject().put("name", name)
                            .set("args", Heartbeats.JSON.valueToTree(args)));
                }
            }
            case ToolRule.Parent p -> {
                ArrayNode children = o.putArray("children");
                p.children().forEach(children::add);
            }
            case ToolRule.Conditional c -> {
                c.defaultChild().ifPresent(d -> o.put("default_child", d));
                ObjectNode mapping = o.putObject("child_output_mapping");
                c.childOutputMapping().forEach(mapping::put);
                o.put("require_output_mapping", c.requireOutputMapping());
            }
            case ToolRule.MaxCountPerStep m -> o.put("max_count_limit", m.maxCount());
            case ToolRule.Terminal t -> { }
            case ToolRule.Continue c -> { }
            case ToolRule.RequiredBeforeExit r -> { }
            case ToolRule.RequiresApproval r -> { }
        }
        return o;
    }

    private static Map<String, Object> args(JsonNode node) {
        if (node.isMissingNode() || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException("prefilled \"args\" must be a JSON object");
        }
        return Heartbeats.JSON.convertValue(node, ARGS);
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asString("")));
        return out;
    }
}
