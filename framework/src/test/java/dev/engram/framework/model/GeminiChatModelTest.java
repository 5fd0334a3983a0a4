package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ToolCall;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class GeminiChatModelTest {
    private FakeProvider server;
    private ChatModel model;

    @BeforeEach
    void start() throws Exception {
        server = new FakeProvider();
        model = server.model("gemini:gemini-test", Map.of("GEMINI_API_KEY", "g-key"));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static ChatRequest weatherRequest() {
        return new ChatRequest(List.of(new ChatMessage.System("You are helpful."), new ChatMessage.User("Weather in Lisbon?")),
                List.of(OpenAiChatModelTest.WEATHER), ChatOptions.defaults().withMaxTokens(100));
    }

    @Test
    void plainTextAndTheExactRequest() {
        server.answer(FakeProvider.Answer.json("""
                {"candidates":[{"content":{"role":"model","parts":[{"text":"Hello!"}]},"finishReason":"STOP"}],
                 "usageMetadata":{"promptTokenCount":7,"candidatesTokenCount":2,"totalTokenCount":9}}"""));
        ChatResponse r = model.chat(new ChatRequest(List.of(new ChatMessage.System("Be brief."), new ChatMessage.User("Hi")),
                List.of(), ChatOptions.defaults().withTemperature(0.5)));
        assertThat(r.message().text()).isEqualTo("Hello!");
        assertThat(r.usage()).isEqualTo(new ChatResponse.Usage(7, 2));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.END_TURN);
        FakeProvider.Received req = server.received.get(0);
        assertThat(req.path()).isEqualTo("/v1beta/models/gemini-test:generateContent");
        assertThat(req.header("x-goog-api-key")).isEqualTo("g-key");
        assertThat(req.json()).isEqualTo(ModelJson.MAPPER.readTree("""
                {"contents":[{"role":"user","parts":[{"text":"Hi"}]}],
                 "systemInstruction":{"parts":[{"text":"Be brief."}]},"generationConfig":{"temperature":0.5}}"""));
    }

    @Test
    void functionCallsAndTheToolDeclarationsSent() {
        server.answer(FakeProvider.Answer.json("""
                {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"Lisbon"}}},
                 {"functionCall":{"name":"weather","args":{"city":"Porto"}}}]},"finishReason":"STOP"}]}"""));
        ChatResponse r = model.chat(weatherRequest().withOptions(ChatOptions.defaults().withToolChoice(ToolChoice.named("weather"))));
        assertThat(r.message().toolCalls()).containsExactly(new ToolCall("call_0", "weather", "{\"city\":\"Lisbon\"}"),
                new ToolCall("call_1", "weather", "{\"city\":\"Porto\"}"));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.TOOL_CALLS);
        JsonNode sent = server.received.get(0).json();
        assertThat(sent.path("tools")).isEqualTo(ModelJson.MAPPER.readTree("""
                [{"functionDeclarations":[{"name":"weather","description":"Current weather for a city.",
                  "parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}]"""));
        assertThat(sent.path("toolConfig")).isEqualTo(ModelJson.MAPPER.readTree(
                "{\"functionCallingConfig\":{\"mode\":\"ANY\",\"allowedFunctionNames\":[\"weather\"]}}"));
    }

    @Test
    void functionResponsesRoundTrip() {
        server.answer(FakeProvider.Answer.json("""
                {"candidates":[{"content":{"role":"model","parts":[{"text":"Sunny in Lisbon."}]},"finishReason":"STOP"}]}"""));
        List<ChatMessage> history = List.of(new ChatMessage.User("Weather?"),
                new ChatMessage.Assistant("", List.of(new ToolCall("call_0", "weather", "{\"city\":\"Lisbon\"}"),
                        new ToolCall("call_1", "weather", "{\"city\":\"Porto\"}"))),
                new ChatMessage.ToolResult("call_0", "weather", "{\"sky\":\"sunny\"}", false),
                new ChatMessage.ToolResult("call_1", "weather", "station offline", true));
        model.chat(ChatRequest.of(history, List.of(OpenAiChatModelTest.WEATHER)));
        JsonNode contents = server.received.get(0).json().path("contents");
        assertThat(contents).hasSize(3);
        assertThat(contents.get(1)).isEqualTo(ModelJson.MAPPER.readTree("""
                {"role":"model","parts":[{"functionCall":{"name":"weather","args":{"city":"Lisbon"}}},
                 {"functionCall":{"name":"weather","args":{"city":"Porto"}}}]}"""));
        assertThat(contents.get(2)).isEqualTo(ModelJson.MAPPER.readTree("""
                {"role":"user","parts":[{"functionResponse":{"name":"weather","response":{"sky":"sunny"}}},
                 {"functionResponse":{"name":"weather","response":{"error":"station offline"}}}]}"""));
    }

    @Test
    void streamedChunks() {
        server.answer(FakeProvider.Answer.sse(List.of(
                FakeProvider.sseData("{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Let me \"}]}}]}"),
                FakeProvider.sseData("{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"check.\"}]}}]}"),
                FakeProvider.sseData("{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":"
                        + "{\"name\":\"weather\",\"args\":{\"city\":\"Lisbon\"}}}]},\"finishReason\":\"STOP\"}],"
                        + "\"usageMetadata\":{\"promptTokenCount\":20,\"candidatesTokenCount\":8}}"))));
        StringBuilder text = new StringBuilder();
        ChatResponse r = model.stream(weatherRequest(), new StreamListener() {
            @Override
            public void onText(String delta) {
                text.append(delta);
            }
        });
        assertThat(text).hasToString("Let me check.");
        assertThat(r.message().toolCalls()).extracting(ToolCall::name).containsExactly("weather");
        assertThat(r.usage()).isEqualTo(new ChatResponse.Usage(20, 8));
        assertThat(server.received.get(0).path()).isEqualTo("/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
    }

    @Test
    void retriesAndErrors() {
        server.answer(FakeProvider.Answer.status(503, "{\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}", Map.of()))
                .answer(FakeProvider.Answer.json("{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}"));
        assertThat(model.chat(weatherRequest()).message().text()).isEqualTo("ok");
        server.answer(FakeProvider.Answer.status(400, "{\"error\":{\"code\":400,\"message\":\"The input token count (1200000) "
                + "exceeds the maximum number of tokens allowed (1048576).\",\"status\":\"INVALID_ARGUMENT\"}}", Map.of()));
        assertThatThrownBy(() -> model.chat(weatherRequest())).isInstanceOf(ContextLengthExceededException.class);
        server.answer(FakeProvider.Answer.status(403, "{\"error\":{\"code\":403,\"message\":\"API key not valid.\",\"status\":\"PERMISSION_DENIED\"}}", Map.of()));
        assertThatThrownBy(() -> model.chat(weatherRequest())).isInstanceOf(ModelHttpException.class)
                .hasMessage("gemini returned HTTP 403: API key not valid.");
    }

    @Test
    void interruptingTheCallerAbortsTheExchange() throws Exception {
        server.answer(FakeProvider.Answer.hanging(List.of()));
        assertThat(FakeProvider.interruptDuring(() -> model.chat(weatherRequest()), 300))
                .isInstanceOf(ModelCancelledException.class);
    }
}
