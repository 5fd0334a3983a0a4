package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelPolicyTest {
    @TempDir
    Path dir;

    @Test
    void providerModelsAreAllowedAndEndpointsAndScriptsAreNot() {
        ModelPolicy p = ModelPolicy.providersOnly();
        assertThat(p.allows("openai:gpt-4o-mini")).isTrue();
        assertThat(p.allows("anthropic:claude-sonnet-4-5")).isTrue();
        assertThat(p.allows("Gemini:gemini-2.5-flash")).isTrue();
        assertThat(p.allows("ollama:llama3.2:3b")).isTrue();
        assertThat(p.refusal("http://169.254.169.254/latest/meta-data#x")).get().asString()
                .contains("'http://169.254.169.254/latest/meta-data#x' is a model endpoint the operator has not allowed")
                .contains("engram serve --allow-model PATTERN");
        assertThat(p.allows("http://127.0.0.1:8080/v1#llama")).isFalse();
        assertThat(p.allows("https://api.openai.com/v1#gpt-4o")).isFalse();
        assertThat(p.refusal("script:/etc/passwd")).get().asString().contains("is a model script the operator has not allowed");
        assertThat(p.allows(" SCRIPT:/etc/passwd")).isFalse();
        assertThat(p.allows("test:echo")).isFalse();
        assertThat(p.allows("openai:")).isFalse();
        assertThat(p.allows("openai:gpt 4")).isFalse();
        assertThat(p.allows("")).isFalse();
    }

    @Test
    void anEndpointPatternAllowsOnlyTheHostItNames() {
        ModelPolicy p = ModelPolicy.providersOnly().allow("http://127.0.0.1:8080/*");
        assertThat(p.allows("http://127.0.0.1:8080/v1#llama")).isTrue();
        assertThat(p.allows("http://127.0.0.1:8081/v1#llama")).isFalse();
        assertThat(p.allows("http://127.0.0.1:8080@169.254.169.254/v1#llama")).isFalse();
        assertThat(p.allows("http://user@127.0.0.1:8080/v1#llama")).isFalse();
        assertThat(p.allows("http://127.0.0.1:8080/v1?x=1#llama")).isFalse();
        assertThat(p.allows("https://127.0.0.1:8080/v1#llama")).isFalse();
        assertThat(p.refusal("http://10.0.0.1/v1#m")).get().asString().contains("or a spec matching http://127.0.0.1:8080/*");
    }

    @Test
    void aScriptPatternAllowsFilesUnderItsDirectoryOnly() throws Exception {
        Path scripts = Files.createDirectories(dir.resolve("scripts"));
        Path ok = Files.writeString(scripts.resolve("a.json"), "[]");
        Path outside = Files.writeString(dir.resolve("secret.txt"), "secret");
        Files.createSymbolicLink(scripts.resolve("link.json"), outside);
        ModelPolicy p = ModelPolicy.providersOnly().allow("script:" + scripts + "/*");
        assertThat(p.allows("script:" + ok)).isTrue();
        assertThat(p.allows("script:" + scripts + "/../secret.txt")).isFalse();
        assertThat(p.allows("script:" + scripts.resolve("link.json"))).isFalse();
        assertThat(p.allows("script:/etc/passwd")).isFalse();
    }

    @Test
    void anExactSpecIsAllowedAndNothingBesideIt() {
        ModelPolicy p = ModelPolicy.providersOnly().allowSpec("script:/srv/demo.json");
        assertThat(p.allows("script:/srv/demo.json")).isTrue();
        assertThat(p.allows("script:/srv/other.json")).isFalse();
        assertThat(ModelPolicy.providersOnly().allows("script:/srv/demo.json")).isFalse(); // immutable
    }

    @Test
    void aPatternMustNameEndpointsOrScripts() {
        assertThatThrownBy(() -> ModelPolicy.providersOnly().allow("openai:*"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("provider models")
                .hasMessageContaining("are always allowed");
        assertThatThrownBy(() -> ModelPolicy.providersOnly().allow("*")).isInstanceOf(IllegalArgumentException.class);
    }
}
