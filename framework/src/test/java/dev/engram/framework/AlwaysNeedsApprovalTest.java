package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool that always needs approval (an imported Python tool) asks on every call, whatever the mode, the
 * auto-approve rules and the approvals remembered for the session.
 */
class AlwaysNeedsApprovalTest {
    /** Runs code nobody reviewed. */
    static final class Unreviewed implements DynamicTool {
        int runs;

        @Override
        public String name() {
            return "unreviewed";
        }

        @Override
        public String description() {
            return "Runs code from an agent file.";
        }

        @Override
        public ObjectNode parametersSchema() {
            return JsonMapper.builder().build().createObjectNode().put("type", "object");
        }

        @Override
        public boolean alwaysNeedsApproval() {
            return true;
        }

        @Override
        public String execute(String argumentsJson, ToolContext context) {
            runs++;
            return "ran";
        }
    }

    @Test
    void inYoloWithoutAHandlerTheCallIsDeniedAndNothingRuns() {
        Unreviewed tool = new Unreviewed();
        ToolExecutor yolo = ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(ApprovalMode.YOLO).build();
        assertThat(yolo.mayAskForApproval()).isTrue();
        ToolResult r = yolo.execute(ToolCall.of("unreviewed", "{}"), ToolContext.empty());
        assertThat(r.status()).isEqualTo(ToolStatus.APPROVAL_DENIED);
        assertThat(tool.runs).isZero();
        ToolExecutor retimed = ToolExecutor.builder(ToolRegistry.create().register(tool.withTimeout(java.time.Duration.ofSeconds(3))))
                .approvalMode(ApprovalMode.YOLO).build();
        assertThat(retimed.execute(ToolCall.of("unreviewed", "{}"), ToolContext.empty()).status())
                .as("a retimed tool keeps the need").isEqualTo(ToolStatus.APPROVAL_DENIED);
        assertThat(tool.runs).isZero();
    }

    @Test
    void everyCallIsAskedEvenWithAnAutoApproveRuleAndASessionApproval() {
        Unreviewed tool = new Unreviewed();
        List<String> asked = new ArrayList<>();
        ToolContext ctx = ToolContext.builder().userId("ana").agentId("helper").sessionId("s").approvalHandler(request -> {
            asked.add(request.toolName());
            return CompletableFuture.completedFuture(ApprovalDecision.approveForSession());
        }).build();
        for (ApprovalMode mode : ApprovalMode.values()) {
            ToolExecutor executor = ToolExecutor.builder(ToolRegistry.create().register(tool)).approvalMode(mode)
                    .approvalRule(ApprovalRule.autoApprove("unreviewed")).build();
            assertThat(executor.execute(ToolCall.of("unreviewed", "{}"), ctx).content()).isEqualTo("ran");
            assertThat(executor.execute(ToolCall.of("unreviewed", "{}"), ctx).content()).isEqualTo("ran");
        }
        assertThat(asked).as("two calls in each of the three modes, each asked").hasSize(2 * ApprovalMode.values().length);
        assertThat(tool.runs).isEqualTo(2 * ApprovalMode.values().length);
    }
}
