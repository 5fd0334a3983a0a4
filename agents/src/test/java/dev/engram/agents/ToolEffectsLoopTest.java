package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.AiTool;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolOutput;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import dev.engram.memory.ToolOutcome;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop decides from what a call's result says it did ({@link ToolEffect}, status), whatever the tool is called
 * and whatever its text says, and stores that with the result.
 */
class ToolEffectsLoopTest {
    private static final Scope ANA = Scope.of("ana", "helper");

    @TempDir
    Path dir;

    private AgentFixture fx;

    record Text(String text) {
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent agent(ScriptedChatModel model, AiTool<?, ?> tool) {
        fx = new AgentFixture(dir).open(b -> b.tool(tool).model("script:test", model));
        return fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test").addTools(tool.name())
                .approvalMode(ApprovalMode.YOLO).maxSteps(5).build());
    }

    private List<ToolOutcome> toolOutcomes() {
        return fx.messages(ANA).stream().filter(m -> m.role() == MessageRole.TOOL).map(m -> m.toolOutcome().orElseThrow())
                .toList();
    }

    @Test
    void aToolOfAnyNameThatMessagesTheUserEndsTheTurnWithItsText() {
        AiTool<Text, ToolOutput> notify = AiTool.of("notify_user", "Shows a banner to the user.", Text.class,
                SafetyTier.SIDE_EFFECTING, (in, ctx) -> ToolOutput.messageToUser("shown", "Banner: " + in.text()));
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "notify_user", "arguments": {"text": "hello"}}]},
                  {"text": "never played"}
                ]}""");

        AgentResponse r = agent(model, notify).send("hi");

        assertThat(r.stopReason()).isEqualTo(AgentStopReason.YIELDED);
        assertThat(r.reply()).contains("Banner: hello");
        assertThat(toolOutcomes()).containsExactly(ToolOutcome.of(ToolOutcome.Status.OK, ToolOutcome.Effect.MESSAGE_TO_USER));
        assertThat(model.remaining()).isEqualTo(1);
    }

    @Test
    void aToolOfAnyNameThatEditsMemoryLetsTheAgentGoOnWithoutAHeartbeat() {
        AiTool<Text, ToolOutput> remember = AiTool.of("remember_fact", "Remembers a fact.", Text.class,
                SafetyTier.SIDE_EFFECTING, (in, ctx) -> ToolOutput.of("remembered", ToolEffect.MEMORY_EDITED));
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "remember_fact", "arguments": {"text": "likes tea"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Noted."}}]}
                ]}""");

        AgentResponse r = agent(model, remember).send("I like tea");

        assertThat(r.stopReason()).isEqualTo(AgentStopReason.YIELDED);
        assertThat(r.reply()).contains("Noted.");
        assertThat(toolOutcomes()).containsExactly(ToolOutcome.of(ToolOutcome.Status.OK, ToolOutcome.Effect.MEMORY_EDITED),
                ToolOutcome.of(ToolOutcome.Status.OK, ToolOutcome.Effect.MESSAGE_TO_USER));
    }

    @Test
    void aToolThatReturnsErrorTextAsDataSucceededInTheStoreAndInThePrompt() {
        AiTool<Text, String> grep = AiTool.of("grep_log", "Finds lines of the log.", Text.class, SafetyTier.READ_ONLY,
                (in, ctx) -> "Error: disk full (line 12 of the log)");
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "grep_log", "arguments": {"text": "disk", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "The disk was full."}}]}
                ]}""");

        AgentResponse r = agent(model, grep).send("what failed?");

        assertThat(r.toolResults().getFirst().isError()).isFalse();
        assertThat(toolOutcomes().getFirst()).isEqualTo(ToolOutcome.OK);
        ChatMessage.ToolResult seen = model.requests().get(1).messages().stream()
                .filter(ChatMessage.ToolResult.class::isInstance).map(ChatMessage.ToolResult.class::cast).findFirst().orElseThrow();
        assertThat(seen.content()).isEqualTo("Error: disk full (line 12 of the log)");
        assertThat(seen.isError()).isFalse();
    }

    @Test
    void theLoopBreakersAndTheRulesRefusalsAreStoredAsRefused() {
        AiTool<Text, String> look = AiTool.of("look", "Looks.", Text.class, SafetyTier.READ_ONLY, (in, ctx) -> "seen");
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "look", "arguments": {"text": "a", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "look", "arguments": {"text": "a", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "look", "arguments": {"text": "a", "request_heartbeat": true}}]}
                ]}""");

        AgentResponse r = agent(model, look).send("look");

        assertThat(r.stopReason()).isEqualTo(AgentStopReason.LOOP_BREAKER);
        assertThat(toolOutcomes()).containsExactly(ToolOutcome.OK, ToolOutcome.OK, ToolOutcome.of(ToolOutcome.Status.REFUSED));
        ConversationMessage last = fx.messages(ANA).getLast();
        assertThat(last.failedToolCall()).isTrue();
    }
}
