package dev.engram.framework.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A key from the environment goes only to its provider's own host; a custom endpoint needs its own. */
class ModelSpecKeysTest {
    private static final Map<String, String> ENV = Map.of("OPENAI_API_KEY", "sk-openai", "ANTHROPIC_API_KEY", "sk-ant",
            "ENGRAM_KEY_GPU_BOX_8000", "sk-gpu");

    @Test
    void aCustomEndpointNeverGetsAProvidersKey() {
        assertThat(ModelSpec.parse("http://attacker.example/v1#gpt-4o", ENV).apiKey()).isEmpty();
        assertThat(ModelSpec.parse("https://attacker.example:443/v1#gpt-4o", ENV).apiKey()).isEmpty();
        assertThat(ModelSpec.parse("http://api.openai.com/v1#gpt-4o", ENV).apiKey()).as("not over plain http").isEmpty();
    }

    @Test
    void aCustomEndpointGetsTheKeyNamedForIt() {
        assertThat(ModelSpec.parse("http://gpu-box:8000/v1#qwen", ENV).apiKey()).contains("sk-gpu");
        assertThat(ModelSpec.parse("http://gpu-box:8001/v1#qwen", ENV).apiKey()).as("another port, another endpoint").isEmpty();
        assertThat(ModelSpec.endpointKeyVariable(URI.create("https://api.together.xyz/v1"))).isEqualTo("ENGRAM_KEY_API_TOGETHER_XYZ");
        assertThat(ModelSpec.endpointKeyVariable(URI.create("http://gpu-box:8000/v1"))).isEqualTo("ENGRAM_KEY_GPU_BOX_8000");
    }

    @Test
    void providersGetTheirOwnKeysAndOpenAisOwnHostItsKey() {
        assertThat(ModelSpec.parse("openai:gpt-4o", ENV).apiKey()).contains("sk-openai");
        assertThat(ModelSpec.parse("anthropic:claude-sonnet-4-5", ENV).apiKey()).contains("sk-ant");
        assertThat(ModelSpec.parse("https://api.openai.com/v1#gpt-4o", ENV).apiKey()).contains("sk-openai");
        assertThat(ModelSpec.namesEndpoint("http://x/v1#m")).isTrue();
        assertThat(ModelSpec.namesEndpoint("openai:gpt-4o")).isFalse();
        assertThatThrownBy(() -> ModelSpec.parse("http:///v1#m", ENV)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no host");
    }

    @Test
    void noAuthorizationHeaderReachesAnEndpointThatHasNoKeyOfItsOwn() throws Exception {
        try (FakeProvider server = new FakeProvider()) {
            server.answer(FakeProvider.Answer.json("""
                    {"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},
                     "finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}"""));
            ChatModel model = server.model(server.base() + "/v1#gpt-4o", Map.of("OPENAI_API_KEY", "sk-openai"));
            model.chat(ChatRequest.of(List.of(new ChatMessage.User("Hi"))));
            assertThat(server.received).singleElement().satisfies(r -> assertThat(r.header("Authorization")).isNull());
        }
    }
}
