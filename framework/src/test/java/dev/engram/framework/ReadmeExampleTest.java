package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.junit.jupiter.api.Test;

/** The README's example, kept compiling and true. */
class ReadmeExampleTest {
    record Add(@JsonPropertyDescription("first addend") int a,
               @JsonPropertyDescription("second addend") int b) {}

    @Test
    void readmeExampleBehavesAsDocumented() {
        AiTool<Add, Integer> add = AiTool.of("add", "Adds two integers and returns the sum.", Add.class,
                SafetyTier.READ_ONLY, (in, ctx) -> in.a() + in.b());

        ToolRegistry registry = ToolRegistry.create().register(add);
        ToolExecutor tools = ToolExecutor.builder(registry)
                .policy(ToolPolicy.builder().deny("shell_*").build())
                .approvalMode(ApprovalMode.AUTO)
                .build();

        ToolContext ctx = ToolContext.builder().userId("ana").agentId("helper").build();

        assertThat(tools.execute(ToolCall.of("add", "{\"a\": 40, \"b\": 2}"), ctx).content()).isEqualTo("42");
        assertThat(tools.execute(ToolCall.of("add", "{\"a\": \"forty\"}"), ctx).content()).isEqualTo(
                "Tool 'add' arguments invalid: field 'a': expected integer, got string \"forty\"; missing required field 'b'");
        assertThat(registry.toolsJson(ToolFormat.ANTHROPIC)).hasSize(1);
    }
}
