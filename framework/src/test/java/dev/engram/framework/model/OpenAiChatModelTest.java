package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class OpenAiChatModelTest {
    private FakeProvider server;
    private ChatModel model;

    static final ToolDefinition WEATHER = new ToolDefinition("weather", "Current weather for a city.",
            (tools.jackson.databind.node.ObjectNode) ModelJson.MAPPER.readTree(
                    "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}},\"required\":[\"city\"]}"),
            SafetyTier.READ_ONLY);

    @BeforeEach
    void start() throws Exception {
        server = new FakeProvider();
        // A custom endpoint's key comes from its own variable only, never from OPENAI_API_KEY.
        model = server.model(server.base() + "/v1#gpt-test",
                Map.of(ModelSpec.endpointKeyVariable(server.base()), "sk-secret"));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static ChatRequest weatherRequest() {
        return new ChatRequest(List.of(new ChatMessage.System("You are helpful."), new ChatMessage.User("Weather in Lisbon?")),
                List.of(WEATHER), ChatOptions.defaults().withTemperature(0.2).withMaxTokens(256));
    }

    @Test
    void plainTextReplyAndTheExactRequestSent() {
        server.answer(FakeProvider.Answer.json("""
                {"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant",
                 "content":"Hello!"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3}}"""));
        ChatResponse r = model.chat(ChatRequest.of(List.of(new ChatMessage.User("Hi"))));
        assertThat(r.message().text()).isEqualTo("Hello!");
        assertThat(r.usage()).isEqualTo(new ChatResponse.Usage(12, 3));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.END_TURN);
        FakeProvider.Received req = server.received.get(0);
        assertThat(req.path()).isEqualTo("/v1/chat/completions");
        assertThat(req.header("Authorization")).isEqualTo("Bearer sk-secret");
        assertThat(req.json()).isEqualTo(ModelJson.MAPPER.readTree(
                "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}"));
    }

    @Test
    void singleToolCallWithToolsAndOptionsInTheRequest() {
        server.answer(FakeProvider.Answer.json("""
                {"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc",
                 "type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Lisbon\\"}"}}]},
                 "finish_reason":"tool_calls"}],"usage":{"prompt_tokens":40,"completion_tokens":9}}"""));
        ChatResponse r = model.chat(weatherRequest());
        assertThat(r.message().toolCalls()).containsExactly(new ToolCall("call_abc", "weather", "{\"city\":\"Lisbon\"}"));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.TOOL_CALLS);
        JsonNode sent = server.received.get(0).json();
        assertThat(sent.path("messages").get(0)).isEqualTo(ModelJson.MAPPER.readTree("{\"role\":\"system\",\"content\":\"You are helpful.\"}"));
        assertThat(sent.at("/tools/0")).isEqualTo(ModelJson.MAPPER.readTree("""
                {"type":"function","function":{"name":"weather","description":"Current weather for a city.",
                 "parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}"""));
        assertThat(sent.path("tool_choice").asString()).isEqualTo("auto");
        assertThat(sent.path("parallel_tool_calls").asBoolean()).isTrue();
        assertThat(sent.path("temperature").asDouble()).isEqualTo(0.2);
        assertThat(sent.path("max_tokens").asInt()).isEqualTo(256);
    }

    @Test
    void parallelToolCallsAndToolChoiceVariants() {
        server.answer(FakeProvider.Answer.json("""
                {"choices":[{"message":{"role":"assistant","content":"Checking both.","tool_calls":[
                 {"id":"c1","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Lisbon\\"}"}},
                 {"id":"c2","type":"function","function":{"name":"weather","arguments":"{\\"city\\":\\"Porto\\"}"}}]},
                 "finish_reason":"tool_calls"}]}"""));
        ChatResponse r = model.chat(weatherRequest().withOptions(ChatOptions.defaults()
                .withToolChoice(ToolChoice.named("weather")).withParallelToolCalls(false)));
        assertThat(r.message().text()).isEqualTo("Checking both.");
        assertThat(r.message().toolCalls()).extracting(ToolCall::id).containsExactly("c1", "c2");
        JsonNode sent = server.received.get(0).json();
        assertThat(sent.path("tool_choice")).isEqualTo(ModelJson.MAPPER.readTree(
                "{\"type\":\"function\",\"function\":{\"name\":\"weather\"}}"));
        assertThat(sent.path("parallel_tool_calls").asBoolean()).isFalse();
    }

    @Test
    void toolResultRoundTrip() {
        server.answer(FakeProvider.Answer.json("""
                {"choices":[{"message":{"role":"assistant","content":"It is sunny in Lisbon."},"finish_reason":"stop"}]}"""));
        List<ChatMessage> history = List.of(new ChatMessage.User("Weather in Lisbon?"),
                new ChatMessage.Assistant("", List.of(new ToolCall("call_1", "weather", "{\"city\":\"Lisbon\"}"))),
                new ChatMessage.ToolResult("call_1", "weather", "sunny, 24C", false));
        assertThat(model.chat(ChatRequest.of(history, List.of(WEATHER))).message().text()).isEqualTo("It is sunny in Lisbon.");
        JsonNode messages = server.received.get(0).json().path("messages");
        assertThat(messages.get(1)).isEqualTo(ModelJson.MAPPER.readTree("""
                {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
                 "function":{"name":"weather","arguments":"{\\"city\\":\\"Lisbon\\"}"}}]}"""));
        assertThat(messages.get(2)).isEqualTo(ModelJson.MAPPER.readTree(
                "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"sunny, 24C\"}"));
    }

    @Test
    void streamedToolCallsSplitAcrossChunksMidToken() {
        List<String> events = new ArrayList<>();
        events.add(FakeProvider.sseData("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Let \"}}]}"));
        events.add(FakeProvider.sseData("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"me check.\"}}]}"));
        events.add(FakeProvider.sseData("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_A\","
                + "\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"\"}}]}}]}"));
        for (String piece : List.of("{\"ci", "ty\": \"Lis", "bo", "n\"}")) {
            events.add(FakeProvider.sseData("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
                    + "\"function\":{\"arguments\":" + ModelJson.MAPPER.writeValueAsString(piece) + "}}]}}]}"));
        }
        events.add(FakeProvider.sseData("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_B\","
                + "\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"{\\\"city\\\":\"}}]}}]}"));
        events.add(FakeProvider.sseData("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,"
                + "\"function\":{\"arguments\":\"\\\"Porto\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}"));
        events.add(FakeProvider.sseData("{\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":20}}"));
        events.add(FakeProvider.sseData("[DONE]"));
        server.answer(FakeProvider.Answer.sse(events));
        List<String> deltas = new ArrayList<>();
        List<ToolCall> streamed = new ArrayList<>();
        ChatResponse r = model.stream(weatherRequest(), new StreamListener() {
            @Override
            public void onText(String delta) {
                deltas.add(delta);
            }

            @Override
            public void onToolCall(ToolCall call) {
                streamed.add(call);
            }
        });
        assertThat(deltas).containsExactly("Let ", "me check.");
        assertThat(r.message().text()).isEqualTo("Let me check.");
        assertThat(r.message().toolCalls()).containsExactly(new ToolCall("call_A", "weather", "{\"city\": \"Lisbon\"}"),
                new ToolCall("call_B", "weather", "{\"city\":\"Porto\"}"));
        assertThat(streamed).isEqualTo(r.message().toolCalls());
        assertThat(r.usage()).isEqualTo(new ChatResponse.Usage(50, 20));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.TOOL_CALLS);
        JsonNode sent = server.received.get(0).json();
        assertThat(sent.path("stream").asBoolean()).isTrue();
        assertThat(sent.at("/stream_options/include_usage").asBoolean()).isTrue();
        assertThat(server.received.get(0).header("Accept")).isEqualTo("text/event-stream");
    }

    @Test
    void malformedArgumentsArePassedOnUnchanged() {
        server.answer(FakeProvider.Answer.json("""
                {"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",
                 "function":{"name":"weather","arguments":"{\\"city\\": Lisbon"}}]},"finish_reason":"tool_calls"}]}"""));
        assertThat(model.chat(weatherRequest()).message().toolCalls().get(0).arguments()).isEqualTo("{\"city\": Lisbon");
    }

    @Test
    void tooManyRequestsIsRetriedHonouringRetryAfter() {
        server.answer(FakeProvider.Answer.status(429, "{\"error\":{\"message\":\"Rate limit reached\"}}", Map.of("Retry-After", "1")))
                .answer(FakeProvider.Answer.json("{\"choices\":[{\"message\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}"));
        long start = System.nanoTime();
        assertThat(model.chat(weatherRequest()).message().text()).isEqualTo("ok");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(950));
        assertThat(server.received).hasSize(2);
    }

    @Test
    void serverErrorThenSuccess() {
        server.answer(FakeProvider.Answer.status(500, "{\"error\":{\"message\":\"boom\"}}", Map.of()))
                .answer(FakeProvider.Answer.status(503, "overloaded", Map.of()))
                .answer(FakeProvider.Answer.json("{\"choices\":[{\"message\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}"));
        assertThat(model.chat(weatherRequest()).message().text()).isEqualTo("ok");
        assertThat(server.received).hasSize(3);
    }

    @Test
    void retriesAreBounded() {
        for (int i = 0; i < 3; i++) {
            server.answer(FakeProvider.Answer.status(502, "{\"error\":{\"message\":\"bad gateway\"}}", Map.of()));
        }
        assertThatThrownBy(() -> model.chat(weatherRequest())).isInstanceOf(ModelHttpException.class)
                .hasMessageContaining("HTTP 502: bad gateway");
        assertThat(server.received).hasSize(3);
    }

    @Test
    void otherClientErrorsAreNotRetriedAndCarryTheProvidersMessage() {
        server.answer(FakeProvider.Answer.status(401, "{\"error\":{\"message\":\"Incorrect API key provided\",\"type\":"
                + "\"invalid_request_error\",\"code\":\"invalid_api_key\"}}", Map.of()));
        assertThatThrownBy(() -> model.chat(weatherRequest())).isInstanceOf(ModelHttpException.class)
                .isNotInstanceOf(ContextLengthExceededException.class)
                .hasMessageEndingWith("returned HTTP 401: Incorrect API key provided")
                .satisfies(e -> assertThat(((ModelHttpException) e).status()).isEqualTo(401));
        assertThat(server.received).hasSize(1);
    }

    @Test
    void contextLengthErrorHasItsOwnType() {
        server.answer(FakeProvider.Answer.status(400, "{\"error\":{\"message\":\"This model's maximum context length is 8192 "
                + "tokens. However, your messages resulted in 9000 tokens.\",\"type\":\"invalid_request_error\","
                + "\"code\":\"context_length_exceeded\"}}", Map.of()));
        assertThatThrownBy(() -> model.chat(weatherRequest())).isInstanceOf(ContextLengthExceededException.class)
                .hasMessageContaining("maximum context length is 8192");
    }

    @Test
    void interruptingTheCallerAbortsTheExchange() throws Exception {
        server.answer(FakeProvider.Answer.hanging(List.of()));
        assertThat(FakeProvider.interruptDuring(() -> model.chat(weatherRequest()), 300))
                .isInstanceOf(ModelCancelledException.class);
    }

    @Test
    void interruptingAStreamAbortsIt() throws Exception {
        server.answer(FakeProvider.Answer.hanging(List.of(
                FakeProvider.sseData("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Once upon\"}}]}"))));
        List<String> deltas = new ArrayList<>();
        Throwable failure = FakeProvider.interruptDuring(() -> model.stream(weatherRequest(), new StreamListener() {
            @Override
            public void onText(String delta) {
                deltas.add(delta);
            }
        }), 500);
        assertThat(deltas).containsExactly("Once upon");
        assertThat(failure).isInstanceOf(ModelCancelledException.class);
    }

    @Test
    void specsParseAndKeysAreNeverShown() {
        ModelSpec openai = ModelSpec.parse("openai:gpt-4o-mini", Map.of("OPENAI_API_KEY", "sk-123"));
        assertThat(openai.provider()).isEqualTo(ModelSpec.Provider.OPENAI);
        assertThat(openai.baseUrl().toString()).isEqualTo("https://api.openai.com/v1");
        assertThat(openai.toString()).doesNotContain("sk-123").contains("(key set)");
        assertThat(ModelSpec.parse("ollama:llama3.1", Map.of()).baseUrl().toString()).isEqualTo("http://localhost:11434/v1");
        assertThat(ModelSpec.parse("ollama:llama3.1", Map.of()).apiKey()).isEmpty();
        assertThat(ModelSpec.parse("http://gpu:8000/v1#qwen2.5", Map.of()).model()).isEqualTo("qwen2.5");
        assertThat(ModelSpec.parse("anthropic:claude-sonnet-4-5", Map.of("ANTHROPIC_API_KEY", "k")).provider())
                .isEqualTo(ModelSpec.Provider.ANTHROPIC);
        assertThat(ModelSpec.parse("gemini:gemini-2.5-flash", Map.of("GOOGLE_API_KEY", "k")).apiKey()).contains("k");
        assertThat(ChatModel.of("openai:gpt-4o-mini", Map.of("OPENAI_API_KEY", "sk-1")).name()).isEqualTo("openai:gpt-4o-mini");
        assertThatThrownBy(() -> ModelSpec.parse("openai:gpt-4o", Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the openai provider needs an API key: set OPENAI_API_KEY");
        assertThatThrownBy(() -> ModelSpec.parse("gpt-4o", Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("a model spec looks like provider:model");
        assertThatThrownBy(() -> ModelSpec.parse("mistral:large", Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown model provider 'mistral'");
        assertThatThrownBy(() -> ModelSpec.parse("http://localhost:8080/v1", Map.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after '#'");
        assertThat(Optional.of(openai).map(ModelSpec::model)).contains("gpt-4o-mini");
    }
}
