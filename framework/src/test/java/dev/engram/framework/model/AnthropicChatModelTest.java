package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.ToolCall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class AnthropicChatModelTest {
    private FakeProvider server;
    private ChatModel model;

    @BeforeEach
    void start() throws Exception {
        server = new FakeProvider();
        model = server.model("anthropic:claude-test", Map.of("ANTHROPIC_API_KEY", "sk-ant"));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static ChatRequest weatherRequest() {
        return new ChatRequest(List.of(new ChatMessage.System("You are helpful."), new ChatMessage.User("Weather in Lisbon?")),
                List.of(OpenAiChatModelTest.WEATHER), ChatOptions.defaults());
    }

    @Test
    void plainTextWithTheSystemPromptAtTopLevel() {
        server.answer(FakeProvider.Answer.json("""
                {"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hello!"}],
                 "stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":2}}"""));
        ChatResponse r = model.chat(new ChatRequest(List.of(new ChatMessage.System("Be brief."), new ChatMessage.User("Hi")),
                List.of(), ChatOptions.defaults()));
        assertThat(r.message().text()).isEqualTo("Hello!");
        assertThat(r.usage()).isEqualTo(new ChatResponse.Usage(10, 2));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.END_TURN);
        FakeProvider.Received req = server.received.get(0);
        assertThat(req.path()).isEqualTo("/v1/messages");
        assertThat(req.header("x-api-key")).isEqualTo("sk-ant");
        assertThat(req.header("anthropic-version")).isEqualTo("2023-06-01");
        assertThat(req.json()).isEqualTo(ModelJson.MAPPER.readTree("""
                {"model":"claude-test","max_tokens":4096,"system":"Be brief.",
                 "messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]}"""));
    }

    @Test
    void singleAndParallelToolUse() {
        server.answer(FakeProvider.Answer.json("""
                {"type":"message","role":"assistant","content":[{"type":"text","text":"Checking."},
                 {"type":"tool_use","id":"toolu_1","name":"weather","input":{"city":"Lisbon"}},
                 {"type":"tool_use","id":"toolu_2","name":"weather","input":{"city":"Porto"}}],
                 "stop_reason":"tool_use","usage":{"input_tokens":30,"output_tokens":40}}"""));
        ChatResponse r = model.chat(weatherRequest().withOptions(ChatOptions.defaults().withToolChoice(ToolChoice.required())
                .withParallelToolCalls(false)));
        assertThat(r.message().text()).isEqualTo("Checking.");
        assertThat(r.message().toolCalls()).containsExactly(new ToolCall("toolu_1", "weather", "{\"city\":\"Lisbon\"}"),
                new ToolCall("toolu_2", "weather", "{\"city\":\"Porto\"}"));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.TOOL_CALLS);
        JsonNode sent = server.received.get(0).json();
        assertThat(sent.at("/tools/0")).isEqualTo(ModelJson.MAPPER.readTree("""
                {"name":"weather","description":"Current weather for a city.",
                 "input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}"""));
        assertThat(sent.path("tool_choice")).isEqualTo(ModelJson.MAPPER.readTree("{\"type\":\"any\",\"disable_parallel_tool_use\":true}"));
    }

    @Test
    void toolResultsOfOneTurnAreGroupedInOneUserMessage() {
        server.answer(FakeProvider.Answer.json("""
                {"content":[{"type":"text","text":"Lisbon is sunny, Porto rainy."}],"stop_reason":"end_turn"}"""));
        List<ChatMessage> history = List.of(new ChatMessage.System("sys"), new ChatMessage.User("Weather?"),
                new ChatMessage.Assistant("", List.of(new ToolCall("t1", "weather", "{\"city\":\"Lisbon\"}"),
                        new ToolCall("t2", "weather", "{\"city\": Porto"))),
                new ChatMessage.ToolResult("t1", "weather", "sunny", false),
                new ChatMessage.ToolResult("t2", "weather", "Tool 'weather' arguments invalid: malformed JSON", true));
        model.chat(ChatRequest.of(history, List.of(OpenAiChatModelTest.WEATHER)));
        JsonNode messages = server.received.get(0).json().path("messages");
        assertThat(messages).hasSize(3);
        assertThat(messages.get(1)).isEqualTo(ModelJson.MAPPER.readTree("""
                {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"weather","input":{"city":"Lisbon"}},
                 {"type":"tool_use","id":"t2","name":"weather","input":{"raw_arguments":"{\\"city\\": Porto"}}]}"""));
        assertThat(messages.get(2)).isEqualTo(ModelJson.MAPPER.readTree("""
                {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"sunny"},
                 {"type":"tool_result","tool_use_id":"t2","content":"Tool 'weather' arguments invalid: malformed JSON","is_error":true}]}"""));
    }

    @Test
    void streamedToolUseWithArgumentsCutMidToken() {
        List<String> events = new ArrayList<>(List.of(
                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\n\n",
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me \"}}\n\n",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"look.\"}}\n\n",
                "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
                "event: ping\ndata: {\"type\":\"ping\"}\n\n",
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"weather\",\"input\":{}}}\n\n"));
        for (String piece : List.of("", "{\"ci", "ty\": \"Lis", "bon\"}")) {
            events.add("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":"
                    + "\"input_json_delta\",\"partial_json\":" + ModelJson.MAPPER.writeValueAsString(piece) + "}}\n\n");
        }
        events.add("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n");
        events.add("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":33}}\n\n");
        events.add("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
        server.answer(FakeProvider.Answer.sse(events));
        StringBuilder text = new StringBuilder();
        ChatResponse r = model.stream(weatherRequest(), new StreamListener() {
            @Override
            public void onText(String delta) {
                text.append(delta);
            }
        });
        assertThat(text).hasToString("Let me look.");
        assertThat(r.message().toolCalls()).containsExactly(new ToolCall("toolu_9", "weather", "{\"city\": \"Lisbon\"}"));
        assertThat(r.usage()).isEqualTo(new ChatResponse.Usage(25, 33));
        assertThat(r.stopReason()).isEqualTo(ChatResponse.StopReason.TOOL_CALLS);
        assertThat(server.received.get(0).json().path("stream").asBoolean()).isTrue();
    }

    @Test
    void malformedStreamedArgumentsArePassedOn() {
        server.answer(FakeProvider.Answer.sse(List.of(
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"weather\",\"input\":{}}}\n\n",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": Lis\"}}\n\n",
                "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\n")));
        assertThat(model.stream(weatherRequest(), StreamListener.NONE).message().toolCalls().get(0).arguments())
                .isEqualTo("{\"city\": Lis");
    }

    @Test
    void overloadedThenSuccessAndRateLimitWithRetryAfter() {
        server.answer(FakeProvider.Answer.status(529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}", Map.of()))
                .answer(FakeProvider.Answer.status(429, "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}",
                        Map.of("retry-after", "1")))
                .answer(FakeProvider.Answer.json("{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"stop_reason\":\"end_turn\"}"));
        long start = System.nanoTime();
        assertThat(model.chat(weatherRequest()).message().text()).isEqualTo("ok");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(950));
        assertThat(server.received).hasSize(3);
    }

    @Test
    void promptTooLongIsAContextLengthError() {
        server.answer(FakeProvider.Answer.status(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                + "\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}", Map.of()));
        assertThatThrownBy(() -> model.chat(weatherRequest())).isInstanceOf(ContextLengthExceededException.class)
                .hasMessageEndingWith("HTTP 400: prompt is too long: 210000 tokens > 200000 maximum");
        server.answer(FakeProvider.Answer.status(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                + "\"message\":\"messages.0: unknown field\"}}", Map.of()));
        assertThatThrownBy(() -> model.chat(weatherRequest())).isInstanceOf(ModelHttpException.class)
                .isNotInstanceOf(ContextLengthExceededException.class).hasMessageEndingWith("messages.0: unknown field");
    }

    @Test
    void interruptingTheCallerAbortsTheExchange() throws Exception {
        server.answer(FakeProvider.Answer.hanging(List.of()));
        assertThat(FakeProvider.interruptDuring(() -> model.chat(weatherRequest()), 300, Thread.ofVirtual()))
                .isInstanceOf(ModelCancelledException.class);
    }
}
