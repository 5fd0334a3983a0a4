package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.Reasoning;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model's own reasoning end to end in the runtime: the scripted model reasons, the agent stores the reasoning with
 * the assistant message of that step, puts it back into the next prompts (where an adapter sends it on when its
 * provider needs it), {@code read_reasoning} shows it apart from the text beside tool calls, and both agent file
 * formats keep it.
 */
class ReasoningStorageTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final MessageReasoning FIRST = new MessageReasoning("Tea suits the evening; check the notes.", "sig-1",
            List.of("EmwKAhgB"));

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
        fx = new AgentFixture(dir).open("script:test", model);
        return fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test")
                .agentType(AgentType.LETTA_V1_AGENT).tools(List.of("memory_search", "read_reasoning")).maxSteps(6).build());
    }

    private static final String SCRIPT = """
            {"turns": [
              {"reasoning": "Tea suits the evening; check the notes.", "reasoning_signature": "sig-1",
               "redacted_reasoning": ["EmwKAhgB"], "text": "Let me check my notes.",
               "tool_calls": [{"name": "memory_search", "arguments": {"query": "tea"}}]},
              {"reasoning": "Nothing in the notes: suggest green.", "text": "Green tea."},
              {"tool_calls": [{"name": "read_reasoning", "arguments": {}},
                              {"name": "read_reasoning", "arguments": {"query": "EVENING"}},
                              {"name": "read_reasoning", "arguments": {"query": "EmwK"}}]},
              {"expect_in_prompt": ["Your reasoning, newest first (2;",
                 "then answered\\n  thinking: Nothing in the notes: suggest green.",
                 "then called memory_search\\n  thinking: Tea suits the evening; check the notes.\\n  (more of your thinking was there, which your model's provider keeps encrypted)\\n  wrote beside the calls: Let me check my notes.",
                 "Your reasoning, newest first (1;", "No earlier reasoning found containing 'EmwK'."],
               "text": "Because it is evening."}
            ]}""";

    @Test
    void theModelsReasoningIsStoredWithItsStepSentBackInPromptsAndReadApartFromTheTextBesideItsCalls() {
        ScriptedChatModel model = script(SCRIPT);
        Agent agent = agent(model);
        agent.send("What should I drink?");

        List<ConversationMessage> assistant = fx.messages(ANA).stream().filter(m -> m.role() == MessageRole.ASSISTANT).toList();
        assertThat(assistant).extracting(ConversationMessage::content).containsExactly("Let me check my notes.", "Green tea.");
        assertThat(assistant).extracting(ConversationMessage::reasoning)
                .containsExactly(FIRST, MessageReasoning.of("Nothing in the notes: suggest green."));
        // the second step's prompt carries the first step's reasoning, signature and encrypted part with its message
        ChatMessage.Assistant sent = model.requests().get(1).messages().stream().filter(ChatMessage.Assistant.class::isInstance)
                .map(ChatMessage.Assistant.class::cast).findFirst().orElseThrow();
        assertThat(sent.reasoning()).isEqualTo(new Reasoning("Tea suits the evening; check the notes.", "sig-1", List.of("EmwKAhgB")));

        AgentResponse why = agent.send("Why green?");

        assertThat(why.reply()).as(why.toString()).contains("Because it is evening.");
        assertThat(model.remaining()).isZero();
        // read_reasoning's own step had no reasoning: nothing is stored for it
        assertThat(fx.messages(ANA).stream().filter(m -> m.role() == MessageRole.ASSISTANT).map(ConversationMessage::reasoning)
                .filter(r -> !r.isEmpty())).hasSize(2);
    }

    @Test
    void reasoningTheProviderKeptEncryptedIsSaidToBeThereAndNothingOfItIsShown() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"redacted_reasoning": ["EmwKAhgB"], "tool_calls": [{"name": "read_reasoning", "arguments": {}}]},
                  {"expect_in_prompt": ["then called read_reasoning\\n  (your thinking was there, but your model's provider keeps it encrypted)"],
                   "text": "Done."}
                ]}""");
        Agent agent = agent(model);

        AgentResponse r = agent.send("Look back.");

        assertThat(r.reply()).as(r.toString()).contains("Done.");
        assertThat(r.toolResults().getFirst().content()).doesNotContain("EmwKAhgB").doesNotContain("thinking: ");
        assertThat(reasonings(ANA)).containsExactly(new MessageReasoning("", "", List.of("EmwKAhgB")));
    }

    @Test
    void bothAgentFileFormatsKeepTheReasoningAndRefuseItOnAUserMessage() {
        ScriptedChatModel model = script(SCRIPT);
        Agent agent = agent(model);
        agent.send("What should I drink?");

        fx.runtime.importAgent(AgentImport.json(fx.runtime.exportAgent("ana", "helper"), "engram export")
                .user("ben").agentId("copy"));
        fx.runtime.importLettaAgentFile(AgentImport.json(fx.runtime.exportLettaAgentFile("ana",
                List.of("helper")), "letta export").user("cy").agentId("letta-copy"));

        List<MessageReasoning> original = reasonings(Scope.of("ana", "helper"));
        assertThat(original).containsExactly(FIRST, MessageReasoning.of("Nothing in the notes: suggest green."));
        assertThat(reasonings(Scope.of("ben", "copy"))).isEqualTo(original);
        assertThat(reasonings(Scope.of("cy", "letta-copy"))).isEqualTo(original);

        String bad = fx.runtime.exportAgent("ana", "helper").replace("\"role\" : \"user\",",
                "\"role\" : \"user\", \"reasoning\" : {\"text\" : \"not mine\"},");
        assertThat(bad).contains("not mine");
        assertThatThrownBy(() -> fx.runtime.importAgent(AgentImport.json(bad, "bad").user("dan").agentId("x")))
                .isInstanceOf(AgentException.class).hasMessageContaining("only assistant messages carry the model's reasoning");
        assertThat(fx.runtime.list("dan")).isEmpty();
    }

    private List<MessageReasoning> reasonings(Scope scope) {
        return fx.messages(scope).stream().filter(m -> m.role() == MessageRole.ASSISTANT).map(ConversationMessage::reasoning)
                .filter(r -> !r.isEmpty()).toList();
    }
}
