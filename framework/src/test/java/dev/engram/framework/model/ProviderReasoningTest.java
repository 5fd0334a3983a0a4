package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ToolCall;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The model's own reasoning in every provider's answer, replayed by a local server in that provider's documented
 * format (the streamed forms are in {@link StreamingProvidersTest}), and sent back where the provider needs it.
 */
class ProviderReasoningTest {
    private FakeProvider server;

    @BeforeEach
    void start() throws Exception {
        server = new FakeProvider();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static ChatRequest request(ChatOptions options) {
        return new ChatRequest(List.of(new ChatMessage.System("Be brief."), new ChatMessage.User("Weather in Lisbon?")),
                List.of(OpenAiChatModelTest.WEATHER), options);
    }

    @Test
    void openAiCompatibleAnswerKeepsItsReasoningContent() {
        ChatModel model = server.model(server.base() + "/v1#deepseek-test", Map.of());
        server.answer(FakeProvider.Answer.json("""
                {"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant",
                 "content":"Checking.","reasoning_content":"The user wants Lisbon's weather; call the tool.",
                 "tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Lisbon\\"}"}}]},
                 "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":30}}"""));
        ChatResponse r = model.chat(request(ChatOptions.defaults()));
        assertThat(r.reasoning()).isEqualTo(Reasoning.of("The user wants Lisbon's weather; call the tool."));
        assertThat(r.message().text()).isEqualTo("Checking.");
        assertThat(r.message().toolCalls()).containsExactly(new ToolCall("call_1", "weather", "{\"city\":\"Lisbon\"}"));
    }

    @Test
    void openAiCompatibleAnswerKeepsReasoningUnderItsOtherNameAndNeverSendsItBack() {
        ChatModel model = server.model(server.base() + "/v1#qwen-test", Map.of());
        server.answer(FakeProvider.Answer.json("""
                {"choices":[{"index":0,"message":{"role":"assistant","content":"Sunny.","reasoning":"Lisbon in summer."},
                 "finish_reason":"stop"}]}"""));
        server.answer(FakeProvider.Answer.json("""
                {"choices":[{"index":0,"message":{"role":"assistant","content":"Still sunny."},"finish_reason":"stop"}]}"""));
        ChatResponse first = model.chat(request(ChatOptions.defaults()));
        assertThat(first.reasoning()).isEqualTo(Reasoning.of("Lisbon in summer."));

        ChatResponse second = model.chat(new ChatRequest(List.of(new ChatMessage.User("Weather in Lisbon?"), first.message(),
                new ChatMessage.User("And now?")), List.of(), ChatOptions.defaults()));

        assertThat(second.reasoning()).isEqualTo(Reasoning.NONE);
        assertThat(server.received.get(1).json().path("messages").path(1)).isEqualTo(ModelJson.MAPPER.readTree(
                "{\"role\":\"assistant\",\"content\":\"Sunny.\"}"));
    }

    @Test
    void anthropicAnswerKeepsThinkingItsSignatureAndRedactedThinking() {
        ChatModel model = server.model("anthropic:claude-test", Map.of("ANTHROPIC_API_KEY", "sk-ant"));
        server.answer(FakeProvider.Answer.json("""
                {"id":"msg_1","type":"message","role":"assistant","content":[
                  {"type":"thinking","thinking":"Lisbon: one call.","signature":"WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve"},
                  {"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"},
                  {"type":"text","text":"Checking."},
                  {"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Lisbon"}}],
                 "stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":50}}"""));
        ChatResponse r = model.chat(request(ChatOptions.defaults().withReasoning(true)));
        assertThat(r.reasoning()).isEqualTo(new Reasoning("Lisbon: one call.", "WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve",
                List.of("EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP")));
        assertThat(r.message().text()).isEqualTo("Checking.");
        assertThat(r.message().toolCalls()).containsExactly(new ToolCall("toolu_1", "weather", "{\"city\":\"Lisbon\"}"));
    }

    @Test
    void anthropicStreamKeepsRedactedThinkingFromItsBlockStart() {
        ChatModel model = server.model("anthropic:claude-test", Map.of("ANTHROPIC_API_KEY", "sk-ant"));
        server.answer(FakeProvider.Answer.sse(List.of(
                anthropic("message_start", "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}"),
                anthropic("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgB\"}}"),
                anthropic("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"),
                anthropic("content_block_start", "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"),
                anthropic("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi.\"}}"),
                anthropic("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}"),
                anthropic("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":9}}"),
                anthropic("message_stop", "{\"type\":\"message_stop\"}"))));
        ChatResponse r = model.stream(request(ChatOptions.defaults().withReasoning(true)), StreamListener.NONE);
        assertThat(r.reasoning()).isEqualTo(new Reasoning("", "", List.of("EmwKAhgB")));
        assertThat(r.message().text()).isEqualTo("Hi.");
    }

    private static ChatRequest followUp(ChatOptions options, Reasoning reasoning) {
        return new ChatRequest(List.of(new ChatMessage.User("Weather in Lisbon?"),
                new ChatMessage.Assistant("Checking.", List.of(new ToolCall("toolu_1", "weather", "{\"city\":\"Lisbon\"}")), reasoning),
                new ChatMessage.ToolResult("toolu_1", "weather", "sunny", false)), List.of(OpenAiChatModelTest.WEATHER), options);
    }

    private JsonNode sentAssistant(ChatModel model, ChatRequest request) {
        server.answer(FakeProvider.Answer.json("{\"content\":[{\"type\":\"text\",\"text\":\"Sunny.\"}],\"stop_reason\":\"end_turn\"}"));
        model.chat(request);
        return server.received.getLast().json().path("messages").path(1);
    }

    @Test
    void anthropicGetsSignedThinkingBackFirstInTheAssistantMessageWhenThinkingIsOn() {
        ChatModel model = server.model("anthropic:claude-test", Map.of("ANTHROPIC_API_KEY", "sk-ant"));
        JsonNode assistant = sentAssistant(model, followUp(ChatOptions.defaults().withReasoning(true),
                new Reasoning("Lisbon: one call.", "sig-1", List.of("EmwK"))));
        assertThat(assistant).isEqualTo(ModelJson.MAPPER.readTree("""
                {"role":"assistant","content":[
                  {"type":"thinking","thinking":"Lisbon: one call.","signature":"sig-1"},
                  {"type":"redacted_thinking","data":"EmwK"},
                  {"type":"text","text":"Checking."},
                  {"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Lisbon"}}]}"""));
    }

    @Test
    void anthropicGetsNoThinkingBackWhenThinkingIsOffOrTheReasoningIsUnsigned() {
        ChatModel model = server.model("anthropic:claude-test", Map.of("ANTHROPIC_API_KEY", "sk-ant"));
        JsonNode off = sentAssistant(model, followUp(ChatOptions.defaults(), new Reasoning("Lisbon: one call.", "sig-1", List.of("EmwK"))));
        JsonNode unsigned = sentAssistant(model, followUp(ChatOptions.defaults().withReasoning(true), Reasoning.of("From another model.")));
        JsonNode expected = ModelJson.MAPPER.readTree("""
                {"role":"assistant","content":[{"type":"text","text":"Checking."},
                  {"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Lisbon"}}]}""");
        assertThat(off).isEqualTo(expected);
        assertThat(unsigned).isEqualTo(expected);
    }

    @Test
    void geminiAnswerKeepsItsThoughtSummary() {
        ChatModel model = server.model("gemini:gemini-test", Map.of("GEMINI_API_KEY", "g-key"));
        server.answer(FakeProvider.Answer.json("""
                {"candidates":[{"content":{"role":"model","parts":[{"text":"**Planning** one lookup.","thought":true},
                  {"text":"Checking."},{"functionCall":{"name":"weather","args":{"city":"Lisbon"}}}]},"finishReason":"STOP"}],
                 "usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":12,"thoughtsTokenCount":40}}"""));
        ChatResponse r = model.chat(request(ChatOptions.defaults().withReasoning(true)));
        assertThat(r.reasoning()).isEqualTo(Reasoning.of("**Planning** one lookup."));
        assertThat(r.message().text()).isEqualTo("Checking.");
        assertThat(r.message().toolCalls()).hasSize(1);
    }

    @Test
    void scriptedTurnGivesSignedAndRedactedReasoningAndRefusesMalformedRedactedReasoning() {
        ChatResponse r = ScriptedChatModel.fromJson("""
                [{"text": "Hi.", "reasoning": "Greet.", "reasoning_signature": "s", "redacted_reasoning": ["x", "y"]}]""")
                .chat(request(ChatOptions.defaults()));
        assertThat(r.reasoning()).isEqualTo(new Reasoning("Greet.", "s", List.of("x", "y")));
        assertThatThrownBy(() -> ScriptedChatModel.fromJson("[{\"text\": \"Hi.\", \"redacted_reasoning\": \"x\"}]"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("turn 1")
                .hasMessageContaining("\"redacted_reasoning\" must be an array of strings");
        assertThatThrownBy(() -> ScriptedChatModel.fromJson("[{\"text\": \"Hi.\", \"redacted_reasoning\": [1]}]"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be an array of strings");
    }

    private static String anthropic(String type, String json) {
        return "event: " + type + "\ndata: " + json + "\n\n";
    }
}
