package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ToolCall;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** {@link ChatModel#requestBody}: exactly the body each provider adapter posts, streamed or not, without posting it. */
class RequestBodyPreviewTest {
    private FakeProvider server;

    @BeforeEach
    void start() throws Exception {
        server = new FakeProvider();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static ChatRequest request() {
        return new ChatRequest(List.of(new ChatMessage.System("Be brief."), new ChatMessage.User("Weather in Lisbon?"),
                new ChatMessage.Assistant("", List.of(new ToolCall("c1", "weather", "{\"city\":\"Lisbon\"}"))),
                new ChatMessage.ToolResult("c1", "weather", "sunny", false), new ChatMessage.User("And Porto?")),
                List.of(OpenAiChatModelTest.WEATHER), ChatOptions.defaults().withTemperature(0.3).withMaxTokens(99));
    }

    /** Previews the body, then has the model send it; the preview sent nothing and equals what the provider got. */
    private void sameAsSent(ChatModel model, String answer, List<String> streamed) {
        JsonNode preview = model.requestBody(request(), false);
        JsonNode previewStreamed = model.requestBody(request(), true);
        assertThat(server.received).as("a preview sends nothing").isEmpty();

        server.answer(FakeProvider.Answer.json(answer));
        model.chat(request());
        assertThat(server.received.getLast().json()).isEqualTo(preview);
        server.answer(FakeProvider.Answer.sse(streamed));
        model.stream(request(), new StreamListener() {
        });
        assertThat(server.received.getLast().json()).isEqualTo(previewStreamed);
    }

    @Test
    void openAiCompatiblePreviewIsTheBodyItPosts() {
        ChatModel model = server.model(server.base() + "/v1#gpt-test", Map.of());
        sameAsSent(model, "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}",
                List.of(FakeProvider.sseData("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}"),
                        FakeProvider.sseData("[DONE]")));
        assertThat(model.requestBody(request(), true).path("stream").asBoolean()).isTrue();
        assertThat(model.requestBody(request(), false).path("model").asString()).isEqualTo("gpt-test");
    }

    @Test
    void anthropicPreviewIsTheBodyItPosts() {
        ChatModel model = server.model("anthropic:claude-test", Map.of("ANTHROPIC_API_KEY", "sk-ant"));
        sameAsSent(model, "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"stop_reason\":\"end_turn\"}", List.of(
                FakeProvider.sseData("{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}"),
                FakeProvider.sseData("{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"),
                FakeProvider.sseData("{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}"),
                FakeProvider.sseData("{\"type\":\"content_block_stop\",\"index\":0}"),
                FakeProvider.sseData("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}"),
                FakeProvider.sseData("{\"type\":\"message_stop\"}")));
        assertThat(model.requestBody(request(), false).path("system").toString()).contains("Be brief.");
    }

    @Test
    void geminiPreviewIsTheBodyItPosts() {
        ChatModel model = server.model("gemini:gemini-test", Map.of("GEMINI_API_KEY", "g-key"));
        String answer = "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\"}]}";
        sameAsSent(model, answer, List.of(FakeProvider.sseData(answer)));
        assertThat(model.requestBody(request(), false).path("contents").size()).isPositive();
    }

    @Test
    void aModelWithoutAWireFormatOfItsOwnPreviewsInOpenAisFormatUnderItsName() {
        ChatModel scripted = ScriptedChatModel.of(List.of());
        JsonNode body = scripted.requestBody(request(), false);
        assertThat(body.path("model").asString()).isEqualTo(scripted.name());
        assertThat(body.path("messages").size()).isEqualTo(5);
        assertThat(body.path("messages").path(3).path("role").asString()).isEqualTo("tool");
        assertThat(body.path("tools").path(0).path("function").path("name").asString()).isEqualTo("weather");
        assertThat(body.has("stream")).isFalse();
        assertThat(scripted.requestBody(request(), true).path("stream").asBoolean()).isTrue();
        assertThat(((ScriptedChatModel) scripted).played()).isZero();
    }
}
