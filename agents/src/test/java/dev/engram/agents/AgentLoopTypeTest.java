package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.AiTool;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ScriptedChatModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The loop follows the agent's type: a {@code letta_v1_agent} goes on after every tool call until the model answers
 * without one (that text is the reply), a MemGPT agent keeps heartbeats; the tools and the default prompt match.
 */
class AgentLoopTypeTest {
    private static final Path FILES = Path.of(System.getProperty("engram.shared.data", "../../shared/data"), "agent-files");
    /** A tool call without request_heartbeat, then a plain answer. */
    private static final String CALL_THEN_ANSWER = """
            {"turns": [
              {"tool_calls": [{"name": "block", "arguments": {"operation": "view", "label": "human"}}]},
              {"text": "You are Ana."}
            ]}""";

    @TempDir
    Path dir;

    private AgentFixture fx;

    record Order(int order_number) {
    }

    record Candidate(String candidate_name) {
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent agent(ScriptedChatModel model, AgentType type, AgentDefinition.Builder extra) {
        fx = new AgentFixture(dir).open("script:test", model);
        return fx.runtime.create(extra.model("script:test").agentType(type)
                .block("human", "What I know about the user", "Name: Ana").build());
    }

    private static AgentDefinition.Builder plain() {
        return AgentDefinition.builder("ana").id("helper").maxSteps(5);
    }

    private static String systemPrompt(ChatRequest request) {
        return ((ChatMessage.System) request.messages().getFirst()).text();
    }

    private static boolean offersHeartbeat(ChatRequest request) {
        return request.tools().stream().map(ToolDefinition::parameters)
                .anyMatch(p -> p.path("properties").has("request_heartbeat"));
    }

    @Test
    void aLettaV1AgentGoesOnAfterAToolCallWithoutAHeartbeatAndItsAnswerIsTheReply() {
        ScriptedChatModel model = script(CALL_THEN_ANSWER);

        AgentResponse r = agent(model, AgentType.LETTA_V1_AGENT, plain()).send("Who am I?");

        assertThat(r.stopReason()).isEqualTo(AgentStopReason.END_TURN);
        assertThat(r.reply()).contains("You are Ana.");
        assertThat(r.steps()).isEqualTo(2);
        assertThat(r.toolResults()).extracting(t -> t.status()).containsExactly(ToolStatus.SUCCESS);
        ChatRequest first = model.requests().getFirst();
        assertThat(offersHeartbeat(first)).isFalse();
        assertThat(systemPrompt(first)).doesNotContain("request_heartbeat", "send_message")
                .contains("reply with your message and no tool call");
    }

    @Test
    void aMemgptAgentStillStopsAfterAToolCallWithoutAHeartbeat() {
        ScriptedChatModel model = script(CALL_THEN_ANSWER);

        AgentResponse r = agent(model, AgentType.MEMGPT_V2_AGENT, plain()).send("Who am I?");

        assertThat(r.stopReason()).isEqualTo(AgentStopReason.NO_HEARTBEAT);
        assertThat(r.reply()).isEmpty();
        assertThat(model.remaining()).isEqualTo(1);
        ChatRequest first = model.requests().getFirst();
        assertThat(offersHeartbeat(first)).isTrue();
        assertThat(systemPrompt(first)).contains("request_heartbeat", "send_message");
    }

    @Test
    void theV1LoopStillEndsAtTheStepCapAndOnATerminalRule() {
        ScriptedChatModel runaway = script("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "view", "label": "human"}}]},
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "list"}}]},
                  {"text": "never played"}
                ]}""");
        AgentResponse capped = agent(runaway, AgentType.LETTA_V1_AGENT, plain().maxSteps(2)).send("go");
        assertThat(capped.stopReason()).isEqualTo(AgentStopReason.STEP_CAP);
        assertThat(runaway.remaining()).isEqualTo(1);
        fx.close();

        ScriptedChatModel terminal = script(CALL_THEN_ANSWER);
        AgentResponse ended = agent(terminal, AgentType.LETTA_V1_AGENT, AgentDefinition.builder("ana").id("other").name("Other")
                .toolRules(List.of(ToolRule.terminal("block")))).send("go");
        assertThat(ended.stopReason()).isEqualTo(AgentStopReason.TERMINAL_TOOL);
        assertThat(terminal.remaining()).isEqualTo(1);
    }

    @Test
    void theDefaultPromptFollowsTheTypeWhenTheTypeChanges() {
        AgentDefinition v1 = AgentDefinition.builder("ana").model("script:x").agentType(AgentType.LETTA_V1_AGENT).build();
        assertThat(v1.systemPrompt()).isEqualTo(AgentDefinition.DEFAULT_V1_SYSTEM_PROMPT);
        assertThat(v1.toBuilder().agentType(AgentType.MEMGPT_AGENT).build().systemPrompt())
                .isEqualTo(AgentDefinition.DEFAULT_SYSTEM_PROMPT);
        AgentDefinition own = AgentDefinition.builder("ana").model("script:x").systemPrompt("You are terse.")
                .agentType(AgentType.LETTA_V1_AGENT).build();
        assertThat(own.systemPrompt()).isEqualTo("You are terse.");
    }

    static Stream<String> files() {
        return Stream.of("memgpt_agent.af", "memgpt_agent_with_convo.af", "customer_service.af", "loop.af",
                "outreach_workflow_agent.af");
    }

    /** Each shared file's agent calls one of its own tools without a heartbeat, and still answers. */
    @ParameterizedTest
    @MethodSource("files")
    void everySharedAgentFileCallsAToolWithoutAHeartbeatAndAnswers(String name) throws Exception {
        Path file = FILES.resolve(name);
        assumeTrue(Files.isRegularFile(file), "the shared agent files are absent; skipping");
        Map<String, String> calls = Map.of(
                "customer_service.af", "{\"name\": \"check_order_status\", \"arguments\": {\"order_number\": 42}}",
                "outreach_workflow_agent.af", "{\"name\": \"retrieve_candidate\", \"arguments\": {\"candidate_name\": \"Sam\"}}");
        String call = calls.getOrDefault(name, "{\"name\": \"conversation_search\", \"arguments\": {\"query\": \"hello\"}}");
        ScriptedChatModel model = script("{\"turns\": [{\"tool_calls\": [" + call + "]}, {\"text\": \"Here is what I found.\"}]}");
        Map<String, ChatModel> models = new ConcurrentHashMap<>(Map.of("script:" + name, model));
        fx = new AgentFixture(dir).open(b -> b.modelResolver(models::get)
                .approvalHandler(q -> CompletableFuture.completedFuture(ApprovalDecision.approve()))
                .tool(AiTool.of("check_order_status", "Order status.", Order.class, SafetyTier.READ_ONLY,
                        (in, ctx) -> "Order " + in.order_number() + " has shipped."))
                .tool(AiTool.of("retrieve_candidate", "A candidate.", Candidate.class, SafetyTier.READ_ONLY,
                        (in, ctx) -> "The candidate " + in.candidate_name() + " is a software engineer.")));
        Agent agent = fx.runtime.importLettaAgentFile(AgentImport.json(Files.readString(file), name).user("ana")
                .model("script:" + name)).agents().getFirst();
        assertThat(agent.definition().agentType()).isEqualTo(AgentType.LETTA_V1_AGENT);

        AgentResponse r = agent.send("Where is order 42?");

        assertThat(r.toolResults()).as(name).singleElement().satisfies(t -> assertThat(t.status()).isEqualTo(ToolStatus.SUCCESS));
        assertThat(r.stopReason()).isEqualTo(AgentStopReason.END_TURN);
        assertThat(r.reply()).contains("Here is what I found.");
        if (name.equals("customer_service.af")) {
            assertThat(r.toolResults().getFirst().content()).isEqualTo("Order 42 has shipped.");
        }
    }
}
