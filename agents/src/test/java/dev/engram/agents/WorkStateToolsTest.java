package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.Goal;
import dev.engram.memory.GoalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.TodoItem;
import dev.engram.memory.TodoStatus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The todo and goal tools end to end: the scripted model calls each tool, the effect is stored, and the next prompt
 * (in the same turn and in the next one) shows it; bad input changes nothing; another agent sees none of it.
 */
class WorkStateToolsTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final List<String> TOOLS = List.of("write_todos", "create_goal", "switch_goal", "complete_goal",
            "create_checkpoint", "record_decision", "read_reasoning");

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent agent(ScriptedChatModel model, String id) {
        if (fx == null) {
            fx = new AgentFixture(dir).open("script:test", model);
        }
        List<String> tools = new ArrayList<>(AgentDefinition.DEFAULT_TOOLS);
        tools.addAll(TOOLS);
        return fx.runtime.create(AgentDefinition.builder("ana").id(id).model("script:test")
                .agentType(AgentType.LETTA_V1_AGENT).tools(tools).maxSteps(6).build());
    }

    private static String system(ChatRequest request) {
        return ((ChatMessage.System) request.messages().getFirst()).text();
    }

    @Test
    void theModelWritesTodosAndAGoalWithACheckpointAndADecisionAndTheNextPromptsShowThem() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [
                    {"name": "write_todos", "arguments": {"todos": [
                      {"content": "Draft the outline", "status": "in_progress"},
                      {"content": "Send it to Ana", "status": "pending"}]}},
                    {"name": "create_goal", "arguments": {"title": "Write the quarterly report", "description": "For Ana's board"}}]},
                  {"expect_in_prompt": ["<work_state>", "Your current goal (goal-", "Write the quarterly report",
                     "For Ana's board", "[in_progress] Draft the outline", "[pending] Send it to Ana", "2 open of 2"],
                   "tool_calls": [
                    {"name": "create_checkpoint", "arguments": {"progress": "Outline drafted, figures next"}},
                    {"name": "record_decision", "arguments": {"decision": "Use the March figures",
                       "rationale": "April is incomplete"}}]},
                  {"expect_in_prompt": ["- Outline drafted, figures next", "- Use the March figures (because April is incomplete)"],
                   "text": "The outline is done."},
                  {"expect_in_prompt": ["Write the quarterly report", "- Outline drafted, figures next", "[pending] Send it to Ana"],
                   "tool_calls": [{"name": "complete_goal", "arguments": {"outcome": "sent to the board"}},
                                  {"name": "write_todos", "arguments": {"todos": []}}]},
                  {"expect_in_prompt": ["Goal completed"], "text": "All done."}
                ]}""".replace("\"Goal completed\"", "\"Completed goal goal-\""));
        Agent agent = agent(model, "helper");

        AgentResponse first = agent.send("Plan the quarterly report.");

        assertThat(first.reply()).as(first.toString()).contains("The outline is done.");
        assertThat(first.toolResults()).extracting(r -> r.status()).containsOnly(ToolStatus.SUCCESS);
        assertThat(fx.store.work().todos(ANA)).containsExactly(new TodoItem("Draft the outline", TodoStatus.IN_PROGRESS),
                TodoItem.pending("Send it to Ana"));
        Goal goal = fx.store.work().currentGoal(ANA).orElseThrow();
        assertThat(goal.title()).isEqualTo("Write the quarterly report");
        assertThat(fx.store.work().entries(ANA, goal.id(), GoalEntry.Kind.DECISION, 5)).extracting(GoalEntry::rationale)
                .containsExactly("April is incomplete");

        AgentResponse second = agent.send("Is the report finished?");

        assertThat(second.reply()).contains("All done.");
        assertThat(fx.store.work().currentGoal(ANA)).isEmpty();
        assertThat(fx.store.work().goal(ANA, goal.id())).map(Goal::outcome).contains("sent to the board");
        assertThat(fx.store.work().todos(ANA)).isEmpty();
        assertThat(system(model.requests().getLast())).doesNotContain("<work_state>");
    }

    @Test
    void badInputFromTheModelIsAnErrorItReadsAndChangesNothing() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "write_todos", "arguments": {"todos": [{"content": "Keep me", "status": "pending"}]}}]},
                  {"tool_calls": [
                    {"name": "write_todos", "arguments": {"todos": [{"content": "Lost", "status": "doing"}]}},
                    {"name": "create_checkpoint", "arguments": {"progress": "no goal yet"}},
                    {"name": "switch_goal", "arguments": {"goal_id": "goal-nope"}}]},
                  {"expect_in_prompt": ["a todo status is one of pending, in_progress, completed; got 'doing'",
                     "there is no current goal to record a checkpoint on", "Goal 'goal-nope' not found.", "[pending] Keep me"],
                   "text": "Sorry."}
                ]}""");
        Agent agent = agent(model, "helper");

        AgentResponse r = agent.send("Go.");

        assertThat(r.reply()).contains("Sorry.");
        assertThat(r.toolResults()).extracting(t -> t.status()).containsExactly(ToolStatus.SUCCESS, ToolStatus.TOOL_ERROR,
                ToolStatus.TOOL_ERROR, ToolStatus.TOOL_ERROR);
        assertThat(fx.store.work().todos(ANA)).containsExactly(TodoItem.pending("Keep me"));
        assertThat(fx.store.work().goals(ANA)).isEmpty();
    }

    @Test
    void anotherAgentOfTheSameUserSeesNoneOfItInItsPrompt() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "create_goal", "arguments": {"title": "Secret plan"}},
                                  {"name": "write_todos", "arguments": {"todos": [{"content": "hidden", "status": "pending"}]}}]},
                  {"text": "ok"},
                  {"text": "hello"}
                ]}""");
        Agent helper = agent(model, "helper");
        Agent coach = agent(model, "coach");

        helper.send("Plan.");
        coach.send("Hi.");

        String coachPrompt = system(model.requests().getLast());
        assertThat(coachPrompt).doesNotContain("Secret plan", "hidden", "<work_state>");
        assertThat(fx.store.work().todos(Scope.of("ana", "coach"))).isEmpty();
        assertThat(fx.store.work().goals(ANA)).extracting(Goal::title).containsExactly("Secret plan");
    }
    @Test
    void readReasoningShowsTheAgentItsEarlierReasoningNewestFirstAndRefusesABadLimit() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"text": "The user wants tea; I should check the notes first.",
                   "tool_calls": [{"name": "memory_search", "arguments": {"query": "tea"}}]},
                  {"text": "Green tea, then."},
                  {"tool_calls": [{"name": "read_reasoning", "arguments": {"query": "TEA"}},
                                  {"name": "read_reasoning", "arguments": {"limit": 99}},
                                  {"name": "read_reasoning", "arguments": {"query": "coffee"}}]},
                  {"expect_in_prompt": ["Your reasoning, newest first (1;", "then called memory_search\\n  wrote beside the calls: The user wants tea; I should check the notes first.", "limit must be between 1 and 50, got 99.",
                     "No earlier reasoning found containing 'coffee'."],
                   "text": "I had checked the notes."}
                ]}""");
        Agent agent = agent(model, "helper");
        agent.send("What should I drink?");

        AgentResponse r = agent.send("Why did you say that?");

        assertThat(r.reply()).as(r.toString()).contains("I had checked the notes.");
        assertThat(r.toolResults()).extracting(t -> t.status()).containsExactly(ToolStatus.SUCCESS, ToolStatus.TOOL_ERROR,
                ToolStatus.SUCCESS);
    }
}
