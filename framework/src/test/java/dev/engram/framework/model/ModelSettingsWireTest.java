package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * An agent's model settings (reasoning, its budget, effort, frequency penalty, response format) reach each provider
 * in the fields its wire format defines, as a local server replaying the provider receives them.
 */
class ModelSettingsWireTest {
    private static final String SCHEMA = "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"r\",\"schema\":{\"type\":\"object\"}}}";

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
        return new ChatRequest(List.of(new ChatMessage.User("Hi")), List.of(), options);
    }

    private static ChatOptions tuned() {
        return ChatOptions.defaults().withTemperature(0.4).withMaxTokens(2000).withReasoning(true).withReasoningBudgetTokens(4096)
                .withEffort("high").withFrequencyPenalty(0.5).withResponseFormat(SCHEMA);
    }

    @Test
    void anOpenAiCompatibleServerGetsEffortFrequencyPenaltyAndResponseFormat() {
        server.answer(FakeProvider.Answer.json("""
                {"choices":[{"index":0,"message":{"role":"assistant","content":"{}"},"finish_reason":"stop"}]}"""));
        ChatModel model = server.model(server.base() + "/v1#gpt-test", Map.of(ModelSpec.endpointKeyVariable(server.base()), "k"));
        model.chat(request(tuned()));
        JsonNode sent = server.received.get(0).json();
        assertThat(sent.path("reasoning_effort").asString()).isEqualTo("high");
        assertThat(sent.path("frequency_penalty").asDouble()).isEqualTo(0.5);
        assertThat(sent.path("response_format")).isEqualTo(ModelJson.MAPPER.readTree(SCHEMA));
        assertThat(sent.path("temperature").asDouble()).isEqualTo(0.4);
        assertThat(sent.path("max_tokens").asInt()).isEqualTo(2000);
    }

    @Test
    void anOpenAiRequestWithoutAnEffortSendsNoReasoningField() {
        server.answer(FakeProvider.Answer.json("""
                {"choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}"""));
        ChatModel model = server.model("openai:gpt-4o-mini", Map.of("OPENAI_API_KEY", "k"));
        model.chat(request(ChatOptions.defaults().withReasoning(false).withFrequencyPenalty(1.0)));
        JsonNode sent = server.received.get(0).json();
        assertThat(sent.has("reasoning_effort")).isFalse();
        assertThat(sent.path("frequency_penalty").asDouble()).isEqualTo(1.0);
    }

    @Test
    void anthropicGetsThinkingWithItsBudgetRoomForItAndTheEffortWithoutATemperature() {
        server.answer(FakeProvider.Answer.json("""
                {"type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn",
                 "usage":{"input_tokens":1,"output_tokens":1}}"""));
        ChatModel model = server.model("anthropic:claude-test", Map.of("ANTHROPIC_API_KEY", "k"));
        model.chat(request(tuned()));
        JsonNode sent = server.received.get(0).json();
        assertThat(sent.path("thinking")).isEqualTo(ModelJson.MAPPER.readTree("{\"type\":\"enabled\",\"budget_tokens\":4096}"));
        assertThat(sent.path("max_tokens").asInt()).isGreaterThan(4096);
        assertThat(sent.has("temperature")).isFalse();
        assertThat(sent.at("/output_config/effort").asString()).isEqualTo("high");
    }

    @Test
    void anthropicWithoutReasoningKeepsItsTemperatureAndSendsNoThinking() {
        server.answer(FakeProvider.Answer.json("""
                {"type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn",
                 "usage":{"input_tokens":1,"output_tokens":1}}"""));
        ChatModel model = server.model("anthropic:claude-test", Map.of("ANTHROPIC_API_KEY", "k"));
        model.chat(request(ChatOptions.defaults().withTemperature(0.3).withReasoning(false)));
        JsonNode sent = server.received.get(0).json();
        assertThat(sent.has("thinking")).isFalse();
        assertThat(sent.path("temperature").asDouble()).isEqualTo(0.3);
    }

    @Test
    void geminiGetsThinkingConfigFrequencyPenaltyAndAJsonResponse() {
        server.answer(FakeProvider.Answer.json("""
                {"candidates":[{"content":{"role":"model","parts":[{"text":"{}"}]},"finishReason":"STOP"}],
                 "usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}"""));
        ChatModel model = server.model("gemini:gemini-test", Map.of("GEMINI_API_KEY", "k"));
        model.chat(request(tuned()));
        JsonNode generation = server.received.get(0).json().path("generationConfig");
        assertThat(generation.path("thinkingConfig"))
                .isEqualTo(ModelJson.MAPPER.readTree("{\"includeThoughts\":true,\"thinkingBudget\":4096}"));
        assertThat(generation.path("frequencyPenalty").asDouble()).isEqualTo(0.5);
        assertThat(generation.path("responseMimeType").asString()).isEqualTo("application/json");
        assertThat(generation.path("responseJsonSchema")).isEqualTo(ModelJson.MAPPER.readTree("{\"type\":\"object\"}"));
    }

    @Test
    void badSettingsAreRefusedWhenTheOptionsAreMade() {
        assertThatThrownBy(() -> ChatOptions.defaults().withFrequencyPenalty(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("frequency penalty must be between -2 and 2");
        assertThatThrownBy(() -> ChatOptions.defaults().withResponseFormat("[1]")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("response format must be a JSON object");
    }
}
