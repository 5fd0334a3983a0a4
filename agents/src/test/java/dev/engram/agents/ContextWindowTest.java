package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;

import com.knuddels.jtokkit.api.EncodingType;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.ContextLengthExceededException;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Token counting, the memory-pressure warning, and compaction (summarise + evict) at the limit. */
class ContextWindowTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final String FILLER = " lorem ipsum dolor sit amet".repeat(40); // ~240 tokens

    @TempDir
    Path dir;

    private AgentFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private Agent small(ChatModel model) {
        fx = new AgentFixture(dir).open(b -> b.model("script:test", model));
        return fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test")
                .systemPrompt("You are terse.").tools("send_message").contextWindowTokens(1_024).build());
    }

    /** An earlier conversation: a short question, a tool call and its long result, then more talk. */
    private void earlierConversation() {
        fx.store.messages().append(ANA, NewMessage.user("s", "Where did I go on holiday?"));
        fx.store.messages().appendAll(ANA, List.of(
                NewMessage.assistant("s", "Checking." + FILLER, List.of(new MessageToolCall("c1", "send_message", "{\"message\":\"x\"}"))),
                NewMessage.tool("s", "c1", "Lisbon, in May." + FILLER)));
        fx.store.messages().append(ANA, NewMessage.user("s", "And what did I eat there?"));
        fx.store.messages().append(ANA, NewMessage.assistant("s", "Pasteis de nata." + FILLER, List.of()));
    }

    @Test
    void atTheLimitTheOldestMessagesAreSummarisedAndEvictedWithoutSplittingAToolPair() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"text": "The user holidayed in Lisbon in May.", "expect_in_prompt": ["Lisbon, in May.", "called send_message"]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "You liked Lisbon."}}],
                   "expect_in_prompt": ["Summary of the earlier conversation: The user holidayed in Lisbon in May.",
                                        "[user] What was my favourite city?"]}
                ]}""");
        Agent agent = small(model);
        earlierConversation();
        assertThat(agent.compilePrompt().tokens()).isGreaterThan(1_024);

        AgentResponse r = agent.send("What was my favourite city?");

        assertThat(r.reply()).contains("You liked Lisbon.");
        List<ConversationMessage> all = fx.messages(ANA);
        // The question, the call and its result went out together; the rest stayed.
        assertThat(all.subList(0, 3)).extracting(ConversationMessage::inContext).containsOnly(false);
        assertThat(all.subList(3, all.size())).extracting(ConversationMessage::inContext).containsOnly(true);
        ConversationMessage summary = all.stream().filter(m -> m.role() == MessageRole.SYSTEM).findFirst().orElseThrow();
        assertThat(summary.content()).isEqualTo("Summary of the earlier conversation: The user holidayed in Lisbon in May.");
        assertThat(summary.inContext()).isTrue();
        assertEveryResultHasItsCall(fx.inContext(ANA));
        assertThat(agent.compilePrompt().tokens()).isLessThanOrEqualTo(1_024);
        AgentEvent.ContextCompacted compacted = fx.events(AgentEvent.ContextCompacted.class).getFirst();
        assertThat(compacted.evictedMessages()).isEqualTo(3);
        assertThat(compacted.tokensAfter()).isLessThan(compacted.tokensBefore());
        // The summary is announced with the turn's messages; the earlier conversation, stored directly, is not.
        assertThat(fx.events(AgentEvent.MessagesStored.class).stream().flatMap(e -> e.messages().stream()))
                .extracting(ConversationMessage::id).containsExactlyElementsOf(all.stream().skip(5).map(ConversationMessage::id).toList())
                .contains(summary.id());
        // Evicted messages stay in recall memory.
        assertThat(fx.store.messages().count(ANA)).isEqualTo(all.size());
    }

    @Test
    void cutPointIsAlwaysAUserMessageAndNeverAfterTheNewest() {
        Agent agent = small(script("{\"turns\": []}"));
        earlierConversation();
        fx.store.messages().append(ANA, NewMessage.user("s", "newest"));
        List<ConversationMessage> conversation = fx.inContext(ANA);
        int cut = new Compactor(agent, agent.settings()).cutPoint(conversation);
        assertThat(cut).isEqualTo(3);
        assertThat(conversation.get(cut).role()).isEqualTo(MessageRole.USER);
        // Only one user message: nothing can go without taking the newest user message with it.
        assertThat(new Compactor(agent, agent.settings()).cutPoint(conversation.subList(0, 3))).isZero();
    }

    @Test
    void whenTheCurrentTurnAloneOverflowsTheWindowTheErrorSaysWhatToChange() {
        Agent agent = small(script("{\"turns\": []}"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> agent.send("Please read this:" + FILLER.repeat(6)))
                .isInstanceOf(AgentException.class).hasMessageContaining("cannot free its context window")
                .hasMessageContaining("Raise contextWindowTokens");
        assertThat(fx.messages(ANA)).allMatch(ConversationMessage::inContext);
    }

    @Test
    void aboveTheThresholdThePromptWarnsOfMemoryPressure() {
        fx = new AgentFixture(dir).open(b -> b.memoryPressureThreshold(0.05).model("script:test", script("""
                {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "ok"}}],
                            "expect_in_prompt": ["<memory_pressure>", "of your context window"]}]}""")));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("helper").model("script:test").build());
        assertThat(agent.send("hi").reply()).contains("ok");
        AgentEvent.MemoryPressure e = fx.events(AgentEvent.MemoryPressure.class).getFirst();
        assertThat(e.promptTokens()).isGreaterThan((int) (0.05 * e.contextWindowTokens()));
    }

    @Test
    void theProvidersContextLengthErrorTriggersCompactionAndOneRetry() {
        ScriptedChatModel script = script("""
                {"turns": [
                  {"text": "Lisbon summary."},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Lisbon."}}],
                   "expect_in_prompt": ["Summary of the earlier conversation: Lisbon summary."]}
                ]}""");
        AtomicBoolean refused = new AtomicBoolean();
        ChatModel strict = new ChatModel() {
            @Override
            public String name() {
                return "strict";
            }

            @Override
            public ChatResponse chat(ChatRequest request) {
                if (!request.tools().isEmpty() && refused.compareAndSet(false, true)) {
                    throw new ContextLengthExceededException("test", 400, "maximum context length exceeded");
                }
                return script.chat(request);
            }
        };
        Agent agent = small(strict);
        fx.store.messages().append(ANA, NewMessage.user("s", "Where did I go?"));
        fx.store.messages().append(ANA, NewMessage.assistant("s", "Lisbon.", List.of()));

        AgentResponse r = agent.send("Remind me?");

        assertThat(refused).isTrue();
        assertThat(r.reply()).contains("Lisbon.");
        assertThat(fx.messages(ANA).subList(0, 2)).extracting(ConversationMessage::inContext).containsOnly(false);
    }

    @Test
    void tokenCountersUseTheModelsEncodingOrTheDocumentedEstimate() {
        assertThat(TokenCounter.forModel("gpt-4o-mini").count("hello world")).isEqualTo(2);
        assertThat(TokenCounter.forModel("gpt-4").count("hello world")).isEqualTo(2);
        String text = "The quick brown fox jumps over the lazy dog. ".repeat(20);
        int cl100k = TokenCounter.encoding(EncodingType.CL100K_BASE).count(text);
        assertThat(TokenCounter.forModel("claude-sonnet-4-5").count(text)).isEqualTo(cl100k + (cl100k + 4) / 5);
        assertThat(TokenCounter.forModel("anything").count("<|endoftext|>")).isPositive(); // special tokens are text
        assertThat(TokenCounter.modelName("openai:gpt-4o")).isEqualTo("gpt-4o");
        assertThat(TokenCounter.modelName("http://localhost:8080/v1#llama3")).isEqualTo("llama3");
    }

    private static void assertEveryResultHasItsCall(List<ConversationMessage> inContext) {
        Set<String> calls = inContext.stream().flatMap(m -> m.toolCalls().stream()).map(MessageToolCall::id)
                .collect(Collectors.toSet());
        assertThat(inContext).filteredOn(m -> m.role() == MessageRole.TOOL)
                .allSatisfy(m -> assertThat(calls).contains(m.toolCallId().orElseThrow()));
        Set<String> results = inContext.stream().flatMap(m -> m.toolCallId().stream()).collect(Collectors.toSet());
        assertThat(calls).allSatisfy(id -> assertThat(results).contains(id));
    }

    @Test
    void aContextWindowLargerThanTheModelTakesIsRefusedWithTheMaximumAndStoresNothing() {
        fx = new AgentFixture(dir).open(b -> { });
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> fx.runtime.create(AgentDefinition.builder("ana").id("helper")
                        .model("openai:gpt-4o-mini").contextWindowTokens(Integer.MAX_VALUE).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent 'helper' asks for a context window of 2147483647 tokens; the most openai models take is "
                        + "1047576 tokens (context_window_limit at most 1047576)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> AgentDefinition.builder("ana").id("helper")
                        .model("script:/srv/model.txt").contextWindowTokens(ContextWindows.MAX + 1).build())
                .hasMessageContaining("the most any model takes is 2097152 tokens");
        assertThat(fx.store.agents().list("ana")).isEmpty();
        // at the maximum is fine, per provider
        assertThat(AgentDefinition.builder("ana").id("a").model("gemini:gemini-1.5-pro").contextWindowTokens(2_097_152).build()
                .contextWindowTokens()).isEqualTo(ContextWindows.MAX);
        assertThat(ContextWindows.max("anthropic:claude-sonnet-4")).isEqualTo(1_000_000);
        assertThat(ContextWindows.max("http://127.0.0.1:8080/v1")).isEqualTo(ContextWindows.MAX);
    }

    @Test
    void aStoredDefinitionWithAHugeWindowLoadsWithTheModelsLargest() {
        AgentDefinition d = AgentFiles.parse("""
                {"format": "engram-agent", "version": 1, "agent": {"id": "helper", "user_id": "ana", "name": "Helper",
                 "model": "openai:gpt-4o-mini", "context_window_tokens": 2147483647}}""", "test").definition();
        assertThat(d.contextWindowTokens()).isEqualTo(1_047_576);
    }
}
