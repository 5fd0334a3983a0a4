package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A turn's {@link ClientTools}: offered for the turn, their calls and the step's calls needing approval handed to the
 * {@link ClientHandler} together before any call runs, the answers stored as the calls' results, and the turn going on.
 */
class ClientToolsTest {
    private static final ObjectNode OBJECT = JsonMapper.builder().build().createObjectNode().put("type", "object");
    private static final ToolDefinition BASH = new ToolDefinition("Bash", "Runs a command.", OBJECT, SafetyTier.PRIVILEGED);

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent agent(ScriptedChatModel model) {
        fx = new AgentFixture(dir).open(b -> b.model("script:test", model)
                .approvalHandler(r -> CompletableFuture.completedFuture(ApprovalDecision.deny("asked alone"))));
        return fx.runtime.create(AgentDefinition.builder("ana").id("coder").model("script:test").agentType(AgentType.LETTA_V1_AGENT)
                .maxSteps(6).block("human", "What I know about the user", "Name: Ana")
                .toolRules(new ToolRule.RequiresApproval("block")).build());
    }

    @Test
    void theStepsWaitingCallsGoToTheClientTogetherAndItsAnswersAreTheResults() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [
                    {"id": "b1", "name": "Bash", "arguments": {"command": "ls"}},
                    {"id": "b2", "name": "Bash", "arguments": {"command": "false"}},
                    {"id": "k1", "name": "block", "arguments": {"operation": "append", "label": "human", "text": "Likes tea"}}]},
                  {"text": "Done.", "expect_in_prompt": ["a.txt", "exit 1"]}
                ]}""");
        Agent agent = agent(model);
        List<List<ClientCall>> handed = new ArrayList<>();
        ClientHandler handler = (scope, calls) -> {
            handed.add(calls);
            return CompletableFuture.completedFuture(Map.of("b1", new ClientAnswer.Ran("a.txt", false),
                    "b2", new ClientAnswer.Ran("exit 1", true), "k1", new ClientAnswer.Decided(ApprovalDecision.approve())));
        };
        AgentResponse r = agent.send("default", "look", new ClientTools(List.of(BASH), handler));

        assertThat(handed).singleElement().satisfies(calls -> {
            assertThat(calls).extracting(ClientCall::callId).containsExactly("b1", "b2", "k1");
            assertThat(calls).extracting(ClientCall::kind).containsExactly(ClientCall.Kind.RUN, ClientCall.Kind.RUN,
                    ClientCall.Kind.APPROVE);
        });
        assertThat(model.requests().getFirst().tools()).extracting(ToolDefinition::name).contains("Bash", "block");
        assertThat(r.toolResults()).extracting(ToolResult::status)
                .containsExactly(ToolStatus.SUCCESS, ToolStatus.TOOL_ERROR, ToolStatus.SUCCESS);
        // the client's failure is its result, not the model's mistake: the turn went on and answered
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.END_TURN);
        assertThat(r.reply()).contains("Done.");
        assertThat(fx.store.blocks().get(Scope.of("ana", "coder"), "human").orElseThrow().value()).contains("Likes tea");
        // the next turn without client tools is not offered Bash
        assertThat(fx.runtime.agent("ana", "coder").definition().tools()).doesNotContain("Bash");
    }

    @Test
    void aClientThatFailsToAnswerLeavesEachCallAResultAndTheTurnGoesOn() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [
                    {"id": "b1", "name": "Bash", "arguments": {"command": "ls"}},
                    {"id": "k1", "name": "block", "arguments": {"operation": "append", "label": "human", "text": "Likes tea"}}]},
                  {"text": "The client is gone."}
                ]}""");
        Agent agent = agent(model);
        AgentResponse r = agent.send("default", "look", new ClientTools(List.of(BASH),
                (scope, calls) -> CompletableFuture.failedFuture(new IllegalStateException("client gone"))));

        assertThat(r.toolResults()).extracting(ToolResult::status).containsExactly(ToolStatus.TIMED_OUT, ToolStatus.APPROVAL_DENIED);
        assertThat(r.toolResults().getFirst().content()).contains("the request to the client failed");
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.END_TURN);
        assertThat(fx.store.blocks().get(Scope.of("ana", "coder"), "human").orElseThrow().value()).doesNotContain("tea");
    }

    @Test
    void clientToolsWithABadOrRepeatedNameAreRefused() {
        ClientHandler none = (scope, calls) -> new CompletableFuture<>();
        assertThatThrownBy(() -> new ClientTools(List.of(BASH, BASH), none)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two client tools are named 'Bash'");
        assertThatThrownBy(() -> new ClientTools(List.of(new ToolDefinition("run it", "x", OBJECT, SafetyTier.PRIVILEGED)), none))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'run it'");
    }
}
