package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every provider's streaming API, replayed by a local server in that provider's documented SSE format:
 * reasoning, text, and parallel tool calls whose fragments interleave, reported to the listener as they
 * arrive and assembled into the same response {@code chat} would give.
 */
class StreamingProvidersTest {
    private FakeProvider server;

    /** Everything a listener hears, in order. */
    static final class Recording implements StreamListener {
        final List<String> heard = new ArrayList<>();

        @Override
        public void onText(String delta) {
            heard.add("text " + delta);
        }

        @Override
        public void onReasoning(String delta) {
            heard.add("reasoning " + delta);
        }

        @Override
        public void onToolCallDelta(int index, String id, String name, String argumentsDelta) {
            heard.add("delta " + index + " " + id + " " + name + " " + argumentsDelta);
        }

        @Override
        public void onToolCall(ToolCall call) {
            heard.add("call " + call.id());
        }

        String joined(String kind) {
            return heard.stream().filter(h -> h.startsWith(kind + " ")).map(h -> h.substring(kind.length() + 1))
                    .collect(Collectors.joining());
        }

        /** The argument fragments of call {@code index}, joined. */
        String arguments(int index) {
            return heard.stream().filter(h -> h.startsWith("delta " + index + " ")).map(h -> h.split(" ", 5)[4])
                    .collect(Collectors.joining());
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = new FakeProvider();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static ChatRequest request() {
        return new ChatRequest(List.of(new ChatMessage.System("Be brief."), new ChatMessage.User("Weather in Lisbon and Porto?")),
                List.of(OpenAiChatModelTest.WEATHER), ChatOptions.defaults());
    }

    private static String openAiChunk(String delta) {
        return FakeProvider.sseData("{\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                + "\"delta\":" + delta + ",\"finish_reason\":null}]}");
    }

    private static String openAiArgs(int index, String piece) {
        return openAiChunk("{\"tool_calls\":[{\"index\":" + index + ",\"function\":{\"arguments\":"
                + ModelJson.MAPPER.writeValueAsString(piece) + "}}]}");
    }

    @Test
    void openAiCompatibleStreamsReasoningTextAndInterleavedParallelCalls() {
        ChatModel model = server.model(server.base() + "/v1#deepseek-test", Map.of());
        server.answer(FakeProvider.Answer.sse(List.of(
                openAiChunk("{\"role\":\"assistant\",\"content\":null,\"reasoning_content\":\"Two cities, \"}"),
                openAiChunk("{\"reasoning_content\":\"two calls.\"}"),
                openAiChunk("{\"content\":\"Checking \"}"),
                openAiChunk("{\"content\":\"both.\"}"),
                openAiChunk("{\"tool_calls\":[{\"index\":0,\"id\":\"call_L\",\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"\"}}]}"),
                openAiChunk("{\"tool_calls\":[{\"index\":1,\"id\":\"call_P\",\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"ci\"}}]}"),
                openAiArgs(0, "{\"city\":"),
                openAiArgs(1, "ty\":\"Por"),
                openAiArgs(0, "\"Lisbon\"}"),
                openAiArgs(1, "to\"}"),
                FakeProvider.sseData("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}"),
                FakeProvider.sseData("{\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":30}}"),
                FakeProvider.sseData("[DONE]"))));
        Recording heard = new Recording();

        ChatResponse r = model.stream(request(), heard);

        assertThat(heard.joined("reasoning")).isEqualTo("Two cities, two calls.");
        assertThat(heard.joined("text")).isEqualTo("Checking both.");
        assertThat(heard.heard).containsSubsequence("delta 0 call_L weather ", "delta 1 call_P weather {\"ci",
                "delta 0   {\"city\":", "delta 1   ty\":\"Por", "delta 0   \"Lisbon\"}", "delta 1   to\"}", "call call_L", "call call_P");
        assertThat(heard.arguments(0)).endsWith("{\"city\":\"Lisbon\"}");
        assertThat(r.message()).isEqualTo(new ChatMessage.Assistant("Checking both.", List.of(
                new ToolCall("call_L", "weather", "{\"city\":\"Lisbon\"}"), new ToolCall("call_P", "weather", "{\"city\":\"Porto\"}")),
                Reasoning.of("Two cities, two calls.")));
        assertThat(r.usage()).isEqualTo(new ChatResponse.Usage(40, 30));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.TOOL_CALLS);
    }

    @Test
    void openAiCompatibleReasoningUnderItsOtherName() {
        ChatModel model = server.model(server.base() + "/v1#qwen-test", Map.of());
        server.answer(FakeProvider.Answer.sse(List.of(openAiChunk("{\"reasoning\":\"hmm \"}"), openAiChunk("{\"content\":\"Hello\"}"),
                FakeProvider.sseData("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}"),
                FakeProvider.sseData("[DONE]"))));
        Recording heard = new Recording();
        ChatResponse r = model.stream(request(), heard);
        assertThat(heard.heard).containsExactly("reasoning hmm ", "text Hello");
        assertThat(r.message().text()).isEqualTo("Hello");
        assertThat(r.reasoning()).isEqualTo(Reasoning.of("hmm "));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.END_TURN);
    }

    private static String anthropic(String type, String json) {
        return "event: " + type + "\ndata: " + json + "\n\n";
    }

    private static String anthropicDelta(int index, String delta) {
        return anthropic("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":" + index + ",\"delta\":" + delta + "}");
    }

    @Test
    void anthropicStreamsThinkingTextAndInterleavedToolUse() {
        ChatModel model = server.model("anthropic:claude-test", Map.of("ANTHROPIC_API_KEY", "sk-ant"));
        server.answer(FakeProvider.Answer.sse(List.of(
                anthropic("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
                        + "\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":50,\"output_tokens\":1}}}"),
                anthropic("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}"),
                anthropicDelta(0, "{\"type\":\"thinking_delta\",\"thinking\":\"Both cities \"}"),
                anthropicDelta(0, "{\"type\":\"thinking_delta\",\"thinking\":\"at once.\"}"),
                anthropicDelta(0, "{\"type\":\"signature_delta\",\"signature\":\"EqQB...\"}"),
                anthropic("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"),
                anthropic("content_block_start", "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"),
                anthropicDelta(1, "{\"type\":\"text_delta\",\"text\":\"Checking.\"}"),
                anthropic("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}"),
                anthropic("ping", "{\"type\":\"ping\"}"),
                anthropic("content_block_start", "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_L\",\"name\":\"weather\",\"input\":{}}}"),
                anthropic("content_block_start", "{\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_P\",\"name\":\"weather\",\"input\":{}}}"),
                anthropicDelta(2, "{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"Lis\"}"),
                anthropicDelta(3, "{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\"\"}"),
                anthropicDelta(2, "{\"type\":\"input_json_delta\",\"partial_json\":\"bon\\\"}\"}"),
                anthropicDelta(3, "{\"type\":\"input_json_delta\",\"partial_json\":\": \\\"Porto\\\"}\"}"),
                anthropic("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":2}"),
                anthropic("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":3}"),
                anthropic("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":61}}"),
                anthropic("message_stop", "{\"type\":\"message_stop\"}"))));
        Recording heard = new Recording();

        ChatResponse r = model.stream(request(), heard);

        assertThat(heard.joined("reasoning")).isEqualTo("Both cities at once.");
        assertThat(heard.joined("text")).isEqualTo("Checking.");
        assertThat(heard.heard).containsSubsequence("delta 0 toolu_L weather ", "delta 1 toolu_P weather ",
                "delta 0   {\"city\": \"Lis", "delta 1   {\"city\"", "delta 0   bon\"}", "delta 1   : \"Porto\"}",
                "call toolu_L", "call toolu_P");
        assertThat(r.message()).isEqualTo(new ChatMessage.Assistant("Checking.", List.of(
                new ToolCall("toolu_L", "weather", "{\"city\": \"Lisbon\"}"), new ToolCall("toolu_P", "weather", "{\"city\": \"Porto\"}")),
                new Reasoning("Both cities at once.", "EqQB...", List.of())));
        assertThat(r.usage()).isEqualTo(new ChatResponse.Usage(50, 61));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.TOOL_CALLS);
    }

    @Test
    void geminiStreamsThoughtsTextAndParallelFunctionCalls() {
        ChatModel model = server.model("gemini:gemini-test", Map.of("GEMINI_API_KEY", "g-key"));
        server.answer(FakeProvider.Answer.sse(List.of(
                FakeProvider.sseData("{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Two lookups.\",\"thought\":true}]}}]}"),
                FakeProvider.sseData("{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Checking \"}]}}]}"),
                FakeProvider.sseData("{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"both.\"},"
                        + "{\"functionCall\":{\"name\":\"weather\",\"args\":{\"city\":\"Lisbon\"}}},"
                        + "{\"functionCall\":{\"name\":\"weather\",\"args\":{\"city\":\"Porto\"}}}]},\"finishReason\":\"STOP\"}],"
                        + "\"usageMetadata\":{\"promptTokenCount\":30,\"candidatesTokenCount\":12}}"))));
        Recording heard = new Recording();

        ChatResponse r = model.stream(request(), heard);

        assertThat(heard.heard).containsExactly("reasoning Two lookups.", "text Checking ", "text both.",
                "delta 0 call_0 weather {\"city\":\"Lisbon\"}", "delta 1 call_1 weather {\"city\":\"Porto\"}", "call call_0", "call call_1");
        assertThat(r.message()).isEqualTo(new ChatMessage.Assistant("Checking both.", List.of(
                new ToolCall("call_0", "weather", "{\"city\":\"Lisbon\"}"), new ToolCall("call_1", "weather", "{\"city\":\"Porto\"}")),
                Reasoning.of("Two lookups.")));
        assertThat(r.usage()).isEqualTo(new ChatResponse.Usage(30, 12));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.TOOL_CALLS);
    }

    @Test
    void aListenerThatThrowsAbortsTheStream() {
        ChatModel model = server.model(server.base() + "/v1#gpt-test", Map.of());
        server.answer(FakeProvider.Answer.sse(List.of(openAiChunk("{\"content\":\"one\"}"), openAiChunk("{\"content\":\"two\"}"),
                FakeProvider.sseData("[DONE]"))));
        List<String> heard = new ArrayList<>();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> model.stream(request(), new StreamListener() {
            @Override
            public void onText(String delta) {
                heard.add(delta);
                throw new IllegalStateException("stop here");
            }
        })).isInstanceOf(IllegalStateException.class).hasMessage("stop here");
        assertThat(heard).containsExactly("one");
    }

    @Test
    void theScriptedModelStreamsInPiecesAndGivesTheResponseChatWould() {
        String script = """
                {"turns": [{"reasoning": "Think first, then act.", "text": "A reply longer than one chunk.",
                            "tool_calls": [{"id": "c1", "name": "weather", "arguments": {"city": "Lisbon"}}]}]}""";
        Recording heard = new Recording();
        ChatResponse streamed = ScriptedChatModel.fromJson(script).stream(request(), heard);
        ChatResponse whole = ScriptedChatModel.fromJson(script).chat(request());
        assertThat(streamed).isEqualTo(whole);
        assertThat(whole.reasoning()).isEqualTo(Reasoning.of("Think first, then act."));
        assertThat(heard.joined("reasoning")).isEqualTo("Think first, then act.");
        assertThat(heard.joined("text")).isEqualTo("A reply longer than one chunk.");
        assertThat(heard.heard.stream().filter(h -> h.startsWith("text "))).hasSizeGreaterThan(1);
        assertThat(heard.arguments(0)).isEqualTo("{\"city\":\"Lisbon\"}");
        assertThat(heard.heard.getLast()).isEqualTo("call c1");
    }
}
