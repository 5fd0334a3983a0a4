package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.TestTools.Echo;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** A tool's result says what the call did ({@link ToolEffect}) and how it ended ({@link ToolStatus}) in fields. */
class ToolEffectsTest {
    private static ToolResult run(DynamicTool tool, String args) {
        ToolExecutor executor = ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(ApprovalMode.YOLO).build();
        return executor.execute(new ToolCall("call-1", tool.name(), args), ToolContext.empty());
    }

    @Test
    void aTypedToolStatesItsEffectsAndTheModelReadsOnlyTheValue() {
        DynamicTool edit = DynamicTool.from(AiTool.of("edit", "Edits memory.", Echo.class, SafetyTier.SIDE_EFFECTING,
                (in, ctx) -> ToolOutput.of("edited " + in.text(), ToolEffect.MEMORY_EDITED)));

        ToolResult r = run(edit, "{\"text\": \"x\"}");

        assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.content()).isEqualTo("edited x");
        assertThat(r.effects()).containsExactly(ToolEffect.MEMORY_EDITED);
        assertThat(r.has(ToolEffect.MESSAGE_TO_USER)).isFalse();
        assertThat(r.userMessage()).isEmpty();
    }

    @Test
    void aMessageToTheUserCarriesItsTextBesideTheValueForTheModel() {
        DynamicTool say = DynamicTool.from(AiTool.of("say", "Says.", Echo.class, SafetyTier.SIDE_EFFECTING,
                (in, ctx) -> ToolOutput.messageToUser(Map.of("success", true), in.text())));

        ToolResult r = run(say, "{\"text\": \"hello\"}");

        assertThat(r.content()).isEqualTo("{\"success\":true}");
        assertThat(r.effects()).containsExactly(ToolEffect.MESSAGE_TO_USER);
        assertThat(r.userMessage()).contains("hello");
    }

    @Test
    void aToolReturningErrorTextAsDataSucceeded() {
        DynamicTool grep = DynamicTool.from(AiTool.of("grep", "Finds lines.", Echo.class, SafetyTier.READ_ONLY,
                (in, ctx) -> "Error: connection refused (a line of the log file)"));

        ToolResult r = run(grep, "{\"text\": \"x\"}");

        assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.isError()).isFalse();
        assertThat(r.content()).startsWith("Error: ");
    }

    @Test
    void aFailedCallHasNoEffects() {
        DynamicTool edit = DynamicTool.from(AiTool.of("edit", "Edits memory.", Echo.class, SafetyTier.SIDE_EFFECTING,
                (in, ctx) -> {
                    throw new ToolException("no block named " + in.text());
                }));

        ToolResult r = run(edit, "{\"text\": \"x\"}");

        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.effects()).isEmpty();
    }

    @Test
    void aRetimedToolAndAnUntypedToolKeepTheirEffects() {
        DynamicTool raw = new DynamicTool() {
            @Override
            public String name() {
                return "raw";
            }

            @Override
            public String description() {
                return "A raw tool.";
            }

            @Override
            public ObjectNode parametersSchema() {
                ObjectNode schema = Json.MAPPER.createObjectNode().put("type", "object");
                schema.putObject("properties");
                return schema;
            }

            @Override
            public String execute(String argumentsJson, ToolContext context) {
                return "plain";
            }

            @Override
            public ToolOutput run(String argumentsJson, ToolContext context) {
                return ToolOutput.of("answered", ToolEffect.AGENT_ANSWERED);
            }
        };

        assertThat(run(raw, "{}").effects()).containsExactly(ToolEffect.AGENT_ANSWERED);
        assertThat(run(raw.withTimeout(Duration.ofSeconds(5)), "{}").effects()).containsExactly(ToolEffect.AGENT_ANSWERED);
    }

    @Test
    void aMessageToTheUserNeedsItsTextAndNothingElseHasOne() {
        assertThatThrownBy(() -> ToolOutput.of("x", ToolEffect.MESSAGE_TO_USER))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("messageToUser");
        assertThatThrownBy(() -> new ToolOutput("x", Set.of(), Optional.of("hi")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ToolResult("c", "t", "x", ToolStatus.SUCCESS, Duration.ZERO, false, 0,
                Set.of(ToolEffect.MESSAGE_TO_USER), Optional.empty())).isInstanceOf(IllegalArgumentException.class);
    }
}
