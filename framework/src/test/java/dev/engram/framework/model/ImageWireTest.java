package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Images in user messages, as each provider adapter sends them to a local server replaying its wire format: the exact
 * JSON sent, and the refusal (before anything is sent) of images a model cannot take.
 */
class ImageWireTest {
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G'};
    private static final String PNG_BASE64 = "iVBORw==";
    private static final ChatRequest WITH_IMAGES = new ChatRequest(List.of(new ChatMessage.User("What is this?",
            List.of(Image.inline("image/png", PNG), Image.url(URI.create("https://example.com/cat.jpg"))))),
            List.of(), ChatOptions.defaults());
    private static final ChatRequest INLINE_ONLY = new ChatRequest(List.of(new ChatMessage.User("",
            List.of(Image.inline("image/png", PNG)))), List.of(), ChatOptions.defaults());

    private FakeProvider server;

    @BeforeEach
    void start() throws Exception {
        server = new FakeProvider();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void openAiSendsTheTextThenEachImageAsAnImageUrlPart() {
        ChatModel model = server.model("openai:gpt-4o-mini", Map.of("OPENAI_API_KEY", "sk"));
        server.answer(FakeProvider.Answer.json("""
                {"choices":[{"message":{"role":"assistant","content":"A cat."},"finish_reason":"stop"}]}"""));
        // an endpoint other than api.openai.com is not trusted to fetch addresses
        assertThatThrownBy(() -> model.chat(WITH_IMAGES)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Model openai:gpt-4o-mini takes images as data, not by URL; send the image's bytes (base64) "
                        + "instead of its address");
        assertThat(server.received).isEmpty();

        assertThat(model.chat(INLINE_ONLY).message().text()).isEqualTo("A cat.");
        assertThat(server.received.getFirst().json()).isEqualTo(ModelJson.MAPPER.readTree("""
                {"model":"gpt-4o-mini","messages":[{"role":"user","content":[
                  {"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]}]}""".formatted(PNG_BASE64)));
        assertThat(((OpenAiChatModel) model).body(new ChatRequest(List.of(new ChatMessage.User("Hi")), List.of(),
                ChatOptions.defaults()), false).at("/messages/0/content").asString()).isEqualTo("Hi");
    }

    @Test
    void openAiItselfTakesImagesByAddress() {
        OpenAiChatModel model = (OpenAiChatModel) ChatModel.of("openai:gpt-4.1", Map.of("OPENAI_API_KEY", "sk"));
        assertThat(model.supportsImageUrls()).isTrue();
        assertThat(model.body(WITH_IMAGES, false).at("/messages/0/content")).isEqualTo(ModelJson.MAPPER.readTree("""
                [{"type":"text","text":"What is this?"},
                 {"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}},
                 {"type":"image_url","image_url":{"url":"https://example.com/cat.jpg"}}]""".formatted(PNG_BASE64)));
    }

    @Test
    void anthropicSendsImageBlocksWithABase64OrUrlSource() {
        ChatModel model = server.model("anthropic:claude-sonnet-4-5", Map.of("ANTHROPIC_API_KEY", "sk-ant"));
        server.answer(FakeProvider.Answer.json("""
                {"content":[{"type":"text","text":"A cat."}],"stop_reason":"end_turn"}"""));
        assertThat(model.chat(WITH_IMAGES).message().text()).isEqualTo("A cat.");
        assertThat(server.received.getFirst().json()).isEqualTo(ModelJson.MAPPER.readTree("""
                {"model":"claude-sonnet-4-5","max_tokens":4096,"messages":[{"role":"user","content":[
                  {"type":"text","text":"What is this?"},
                  {"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}},
                  {"type":"image","source":{"type":"url","url":"https://example.com/cat.jpg"}}]}]}""".formatted(PNG_BASE64)));
    }

    @Test
    void geminiSendsInlineDataAndRefusesAddresses() {
        ChatModel model = server.model("gemini:gemini-2.5-flash", Map.of("GEMINI_API_KEY", "g"));
        assertThatThrownBy(() -> model.chat(WITH_IMAGES)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Model gemini:gemini-2.5-flash takes images as data, not by URL; send the image's bytes "
                        + "(base64) instead of its address");
        assertThat(server.received).isEmpty();
        server.answer(FakeProvider.Answer.json("""
                {"candidates":[{"content":{"role":"model","parts":[{"text":"A cat."}]},"finishReason":"STOP"}]}"""));
        ChatRequest request = new ChatRequest(List.of(new ChatMessage.User("What is this?",
                List.of(Image.inline("image/png", PNG), Image.inline("image/webp", new byte[] {1, 2})))), List.of(),
                ChatOptions.defaults());
        assertThat(model.chat(request).message().text()).isEqualTo("A cat.");
        assertThat(server.received.getFirst().json().path("contents")).isEqualTo(ModelJson.MAPPER.readTree("""
                [{"role":"user","parts":[{"text":"What is this?"},
                  {"inlineData":{"mimeType":"image/png","data":"%s"}},
                  {"inlineData":{"mimeType":"image/webp","data":"AQI="}}]}]""".formatted(PNG_BASE64)));
    }

    @Test
    void aModelThatCannotSeeRefusesImagesBeforeSendingAnything() {
        ChatModel model = server.model(server.base() + "/v1#llama3.1", Map.of());
        assertThat(model.supportsImages()).isFalse();
        assertThatThrownBy(() -> model.chat(INLINE_ONLY)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Model openai:llama3.1 cannot see images; send the message without them, or use a model "
                        + "that takes images");
        assertThat(server.received).isEmpty();
    }

    @Test
    void whichModelsSeeIsKnownByTheirNames() {
        assertThat(List.of("gpt-4o", "gpt-4o-mini", "gpt-4.1-nano", "gpt-5", "o1", "o3", "o4-mini", "llava:13b",
                "qwen2.5-vl-7b", "llama3.2-vision")).allMatch(Vision::openAi);
        assertThat(List.of("gpt-3.5-turbo", "o1-mini", "o3-mini", "llama3.1", "mistral")).noneMatch(Vision::openAi);
        assertThat(Vision.anthropic("claude-3-5-haiku-latest")).isTrue();
        assertThat(Vision.anthropic("claude-2.1")).isFalse();
        assertThat(Vision.gemini("gemini-2.5-pro")).isTrue();
        assertThat(Vision.gemini("gemini-pro")).isFalse();
    }

    @Test
    void aScriptDeclaresWhetherItsModelSees() {
        String turns = "[{\"text\": \"A cat.\", \"expect_in_prompt\": [\"[image image/png, 4 bytes]\"]}]";
        ScriptedChatModel blind = ScriptedChatModel.fromJson("{\"turns\": " + turns + "}");
        assertThat(blind.supportsImages()).isFalse();
        assertThatThrownBy(() -> blind.chat(INLINE_ONLY)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot see images");
        assertThat(blind.played()).isZero();
        ScriptedChatModel seeing = ScriptedChatModel.fromJson("{\"vision\": true, \"turns\": " + turns + "}");
        assertThat(seeing.supportsImages()).isTrue();
        assertThat(seeing.chat(INLINE_ONLY).message().text()).isEqualTo("A cat.");
        assertThat(ScriptedChatModel.of(List.of()).withVision().supportsImageUrls()).isTrue();
        assertThatThrownBy(() -> ScriptedChatModel.fromJson("{\"vision\": \"yes\", \"turns\": []}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("the script: \"vision\" must be true or false");
    }
}
