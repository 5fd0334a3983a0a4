package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.TestTools.Counting;
import dev.engram.framework.TestTools.Echo;
import dev.engram.framework.TestTools.ReadFile;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a host that gathers a step's approvals before running any call needs from the pipeline: the approval request a
 * call would make ({@link ToolExecutor#approvalRequest}), the result of a call a client ran ({@link ToolExecutor#resultOf}),
 * and a check of a tool definition written elsewhere ({@link ToolDefinition#checked}).
 */
class ClientSideCallsTest {
    private ToolRegistry registry;
    private Counting<Echo, String> write;

    @BeforeEach
    void setUp() {
        registry = ToolRegistry.create();
        write = Counting.of("file_write", Echo.class, SafetyTier.SIDE_EFFECTING, (in, ctx) -> "wrote " + in.text());
        registry.register(write).register(Counting.of("file_read", ReadFile.class, SafetyTier.READ_ONLY, (in, ctx) -> "x"));
    }

    @Test
    void theApprovalRequestOfACallIsKnownBeforeItRunsAndNothingRuns() {
        ToolExecutor ex = ToolExecutor.builder(registry).approvalMode(ApprovalMode.AUTO).build();
        ToolContext ctx = ToolContext.builder().userId("u1").agentId("a1").sessionId("s1")
                .approvalHandler(r -> CompletableFuture.completedFuture(ApprovalDecision.approveForSession())).build();
        ApprovalRequest asked = ex.approvalRequest(new ToolCall("c1", "file_write", "{\"text\":\"a\"}"), ctx).orElseThrow();
        assertThat(asked.toolName()).isEqualTo("file_write");
        assertThat(asked.callId()).isEqualTo("c1");
        assertThat(write.runs).hasValue(0);
        // no request for a read-only call, an unknown tool or invalid arguments: they never ask
        assertThat(ex.approvalRequest(new ToolCall("c2", "file_read", "{\"path\":\"a\"}"), ctx)).isEmpty();
        assertThat(ex.approvalRequest(new ToolCall("c3", "nope", "{}"), ctx)).isEmpty();
        assertThat(ex.approvalRequest(new ToolCall("c4", "file_write", "{not json"), ctx)).isEmpty();
        // approved for the session: the next call of the tool would not ask
        ex.execute(new ToolCall("c5", "file_write", "{\"text\":\"b\"}"), ctx);
        assertThat(ex.approvalRequest(new ToolCall("c6", "file_write", "{\"text\":\"c\"}"), ctx)).isEmpty();
    }

    @Test
    void aClientsResultIsCutToTheOutputBudget() {
        ToolExecutor ex = ToolExecutor.builder(registry).outputBudgetBytes(256).build();
        ToolResult r = ex.resultOf(new ToolCall("c1", "Bash", "{}"), ToolStatus.SUCCESS, "y".repeat(5000));
        assertThat(r.truncated()).isTrue();
        assertThat(r.content().length()).isLessThanOrEqualTo(256);
        assertThat(r.callId()).isEqualTo("c1");
        assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
    }

    @Test
    void aDefinitionWrittenElsewhereIsCheckedAsARegisteredToolsIs() {
        ObjectNode ok = Json.MAPPER.createObjectNode().put("type", "object");
        ok.putObject("properties").putObject("command").put("type", "string");
        assertThat(ToolDefinition.checked("Bash", "Runs a command.", ok, SafetyTier.PRIVILEGED).name()).isEqualTo("Bash");
        assertThatThrownBy(() -> ToolDefinition.checked("run it", "", ok, SafetyTier.PRIVILEGED))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("'run it'");
        // Letta Code's schemas name draft-07, whose array form of "items" 2020-12 no longer has
        ObjectNode draft7 = (ObjectNode) Json.MAPPER.readTree("""
                {"type": "object", "properties": {"command": {"type": "string"}, "pair": {"type": "array",
                 "items": [{"type": "string"}, {"type": "number"}]}}, "required": ["command"],
                 "additionalProperties": false, "$schema": "http://json-schema.org/draft-07/schema#"}""");
        assertThat(ToolDefinition.checked("Bash", "Runs a command.", draft7, SafetyTier.PRIVILEGED).name()).isEqualTo("Bash");
        ObjectNode bad = Json.MAPPER.createObjectNode().put("type", "object");
        bad.putObject("properties").putObject("command").put("type", 7);
        assertThatThrownBy(() -> ToolDefinition.checked("Bash", "", bad, SafetyTier.PRIVILEGED))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("/properties/command/type");
    }
}
