package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Tool rules in Letta's JSON shapes: every kind reads back what it wrote, and bad rules say what is wrong. */
class ToolRulesJsonTest {
    private static final List<ToolRule> ALL = List.of(
            new ToolRule.Init("a", Map.of("x", 1, "y", "z")),
            ToolRule.terminal("b"),
            ToolRule.continueAfter("c"),
            new ToolRule.Child("a", List.of("b", "c"), Map.of("b", Map.of("k", true))),
            ToolRule.parent("a", "d"),
            new ToolRule.Conditional("e", Optional.of("b"), Map.of("True", "a", "False", "c"), true),
            ToolRule.maxCountPerStep("a", 3),
            ToolRule.requiredBeforeExit("f"),
            ToolRule.requiresApproval("g"));

    @Test
    void everyKindRoundTrips() {
        String json = ToolRules.toJson(ALL).toString();
        assertThat(ToolRules.parse(json)).isEqualTo(ALL);
    }

    @Test
    void theShapesAreLettas() {
        JsonNode json = ToolRules.toJson(ALL);
        assertThat(json).extracting(n -> n.path("type").asString()).containsExactly("run_first", "exit_loop", "continue_loop",
                "constrain_child_tools", "parent_last_tool", "conditional", "max_count_per_step", "required_before_exit",
                "requires_approval");
        assertThat(json.get(0).path("args").path("x").asInt()).isEqualTo(1);
        assertThat(json.get(3).path("child_arg_nodes").get(0).path("name").asString()).isEqualTo("b");
        assertThat(json.get(5).path("default_child").asString()).isEqualTo("b");
        assertThat(json.get(5).path("child_output_mapping").path("True").asString()).isEqualTo("a");
        assertThat(json.get(5).path("require_output_mapping").asBoolean()).isTrue();
        assertThat(json.get(6).path("max_count_limit").asInt()).isEqualTo(3);
    }

    @Test
    void lettaFieldsThatEngramIgnoresAreAccepted() {
        List<ToolRule> rules = ToolRules.parse("""
                [{"tool_name": "a", "type": "run_first", "prompt_template": null, "args": null},
                 {"tool_name": "a", "type": "constrain_child_tools", "prompt_template": "x", "children": ["b"], "child_arg_nodes": null},
                 {"tool_name": "b", "type": "conditional", "default_child": null, "child_output_mapping": {"1": "a"}}]""");
        assertThat(rules).containsExactly(ToolRule.init("a"), ToolRule.child("a", "b"),
                new ToolRule.Conditional("b", Optional.empty(), Map.of("1", "a"), false));
    }

    @Test
    void badRulesSayWhichAndWhy() {
        assertThatThrownBy(() -> ToolRules.parse("[{\"tool_name\": \"a\", \"type\": \"sometimes\"}]"))
                .hasMessageContaining("tool rule 1 is invalid: unknown tool rule type \"sometimes\"");
        assertThatThrownBy(() -> ToolRules.parse("[{\"type\": \"exit_loop\"}]"))
                .hasMessageContaining("tool rule 1 is invalid: a terminal rule needs a tool name");
        assertThatThrownBy(() -> ToolRules.parse("[{\"type\": \"exit_loop\", \"tool_name\": \"a\"}, "
                + "{\"type\": \"constrain_child_tools\", \"tool_name\": \"a\"}]"))
                .hasMessageContaining("tool rule 2 is invalid: the children of the child rule of 'a' must name at least one tool");
        assertThatThrownBy(() -> ToolRules.parse("[{\"type\": \"max_count_per_step\", \"tool_name\": \"a\", \"max_count_limit\": \"x\"}]"))
                .hasMessageContaining("needs an integer \"max_count_limit\"");
        assertThatThrownBy(() -> ToolRules.parse("{\"type\": \"exit_loop\"}")).hasMessageContaining("must be a JSON array");
        assertThatThrownBy(() -> ToolRules.parse("[{")).hasMessageContaining("not valid JSON");
    }

    @Test
    void aStoredDefinitionWithBadRulesIsReportedAsSuch() {
        String json = """
                {"id": "x", "user_id": "ana", "name": "x", "model": "script:x", "tools": ["block"],
                 "tool_rules": [{"type": "exit_loop", "tool_name": "nope"}]}""";
        assertThatThrownBy(() -> AgentFiles.definition(Heartbeats.JSON.readTree(json), "the test definition"))
                .isInstanceOf(AgentException.class)
                .hasMessageContaining("the test definition is not a valid agent definition")
                .hasMessageContaining("exit_loop rule about [nope], which are not among its tools [block]");
    }
}
