package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** An approval for the session covers the calls of the same approval scope, not the whole tool. */
class ApprovalScopeTest {
    record Command(String line) {
    }

    /** Like a shell: each command line is its own approval scope. */
    static final class Runner implements AiTool<Command, String> {
        @Override
        public ToolInfo info() {
            return ToolInfo.of("run", "Runs a command line.", SafetyTier.PRIVILEGED);
        }

        @Override
        public Class<Command> inputType() {
            return Command.class;
        }

        @Override
        public String execute(Command input, ToolContext context) {
            return "ran " + input.line();
        }

        @Override
        public Optional<String> approvalScope(Command input) {
            return Optional.of(input.line());
        }
    }

    @Test
    void approvingOneCommandForTheSessionApprovesOnlyThatCommand() throws Exception {
        List<String> asked = new ArrayList<>();
        ToolContext ctx = ToolContext.builder().userId("ana").agentId("helper").sessionId("s").approvalHandler(request -> {
            asked.add(request.arguments());
            return CompletableFuture.completedFuture(ApprovalDecision.approveForSession());
        }).build();
        ToolExecutor executor = ToolExecutor.builder(ToolRegistry.create().register(new Runner()))
                .approvalMode(ApprovalMode.AUTO).build();

        assertThat(executor.execute(ToolCall.of("run", "{\"line\": \"git status\"}"), ctx).content()).isEqualTo("ran git status");
        assertThat(executor.execute(ToolCall.of("run", "{\"line\": \"git status\"}"), ctx).content()).isEqualTo("ran git status");
        assertThat(asked).as("the same command, approved for the session, is not asked again").hasSize(1);
        executor.execute(ToolCall.of("run", "{\"line\": \"git push --force\"}"), ctx);
        assertThat(asked).as("another command is asked about").hasSize(2);
        assertThat(DynamicTool.from(new Runner()).withTimeout(java.time.Duration.ofSeconds(5))
                .approvalScope("{\"line\": \"ls\"}")).contains("ls");
    }
}
