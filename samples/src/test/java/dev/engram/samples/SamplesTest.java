package dev.engram.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.tools.MessageRouter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each sample, run the way its main runs it, with a scripted model in place of a provider. */
class SamplesTest {
    @TempDir
    Path dir;

    private static Function<String, ChatModel> only(String spec, ChatModel model) {
        return s -> {
            if (!s.equals(spec)) {
                throw new IllegalArgumentException("unexpected model " + s);
            }
            return model;
        };
    }

    @Test
    void persistentAssistantRemembersAcrossARestart() {
        ScriptedChatModel first = ScriptedChatModel.fromJson("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Name: Ana; likes green tea"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Nice to meet you, Ana."}}]}
                ]}""");
        try (PersistentAssistant a = PersistentAssistant.open(dir, "script:a", only("script:a", first), "ana")) {
            assertThat(a.ask("I'm Ana and I like green tea.")).isEqualTo("Nice to meet you, Ana.");
        }
        ScriptedChatModel second = ScriptedChatModel.fromJson("""
                {"turns": [{"tool_calls": [{"name": "send_message", "arguments": {"message": "Green tea, Ana."}}],
                            "expect_in_prompt": ["Name: Ana; likes green tea", "[user] I'm Ana and I like green tea."]}]}""");
        try (PersistentAssistant a = PersistentAssistant.open(dir, "script:a", only("script:a", second), "ana")) {
            assertThat(a.ask("What do I drink?")).isEqualTo("Green tea, Ana.");
            assertThat(a.agent().inContextMessages()).hasSizeGreaterThan(4);
        }
    }

    @Test
    void chatBotAnswersEachUserThroughSendMessageAndKeepsThemApart() {
        ScriptedChatModel model = ScriptedChatModel.fromJson("""
                {"turns": [
                  {"tool_calls": [{"name": "block", "arguments": {"operation": "append", "label": "human", "text": "Alice, order 42", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Order 42 ships tomorrow, Alice."}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Hi Bob, how can I help?"}}]},
                  {"text": "I am not sure."}
                ]}""");
        try (ChatBot bot = new ChatBot(dir, "script:bot", only("script:bot", model))) {
            assertThat(bot.handle("alice", "Where is order 42?")).isEqualTo("Order 42 ships tomorrow, Alice.");
            assertThat(bot.handle("bob", "Hello")).isEqualTo("Hi Bob, how can I help?");
            assertThat(bot.handle("bob", "And my order?")).isEqualTo("I am not sure.");
        }
        // Bob's prompts never held Alice's memory.
        assertThat(model.requests().get(2).messages().getFirst().toString()).doesNotContain("Alice, order 42");
    }

    @Test
    void customToolsRunBesideTheBuiltIns() {
        try (MemoryStore store = MemoryStore.inMemory();
                Embedder embedder = Embedder.onnxDefault();
                MemorySearch search = MemorySearch.luceneInMemory(store, embedder)) {
            List<String> sent = new ArrayList<>();
            ToolRegistry registry = CustomTool.registry(store, search, MessageRouter.to(m -> sent.add(m.text())));
            assertThat(registry.names()).contains("convert_currency", "roll", "block", "memory_save", "send_message");
            assertThat(registry.find("roll").orElseThrow().parametersSchema().toString())
                    .contains("how many sides each die has");
            ToolExecutor executor = ToolExecutor.builder(registry).build();
            ToolContext ctx = ToolContext.builder().userId("me").agentId("sample").build();
            ToolResult converted = executor.execute(ToolCall.of("convert_currency", "{\"amount\":100,\"from\":\"USD\",\"to\":\"EUR\"}"), ctx);
            assertThat(converted.content()).isEqualTo("{\"amount\":92.0,\"currency\":\"EUR\"}");
            ToolResult rolled = executor.execute(ToolCall.of("roll", "{\"count\":3,\"sides\":6}"), ctx);
            assertThat(Integer.parseInt(rolled.content())).isBetween(3, 18);
            ToolResult bad = executor.execute(ToolCall.of("roll", "{\"count\":30,\"sides\":6}"), ctx);
            assertThat(bad.status()).isEqualTo(ToolStatus.TOOL_ERROR);
            assertThat(bad.content()).contains("count must be 1 to 20");
            assertThat(executor.execute(ToolCall.of("convert_currency", "{\"amount\":1,\"from\":\"ABC\",\"to\":\"EUR\"}"), ctx)
                    .content()).contains("Unknown currency");
        }
    }
}
