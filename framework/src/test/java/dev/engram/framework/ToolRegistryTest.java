package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.TestTools.Echo;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class ToolRegistryTest {
    private static AiTool<Echo, String> echo(String name) {
        return AiTool.of(name, "Echoes.", Echo.class, SafetyTier.READ_ONLY, (in, c) -> in.text());
    }

    /** A hand-written dynamic tool, as an MCP bridge would write one. */
    static final class RawTool implements DynamicTool {
        private final String name;
        private final ObjectNode schema;

        RawTool(String name, String schemaJson) {
            this.name = name;
            this.schema = (ObjectNode) Json.MAPPER.readTree(schemaJson);
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String description() {
            return "A raw tool.";
        }

        @Override
        public ObjectNode parametersSchema() {
            return schema;
        }

        @Override
        public String execute(String argumentsJson, ToolContext context) {
            return "raw:" + argumentsJson;
        }

        @Override
        public String toString() {
            return "RawTool[" + name + "]";
        }
    }

    @Test
    void duplicateNameIsRejectedNamingBothTools() {
        ToolRegistry registry = ToolRegistry.create().register(new RawTool("echo", "{\"type\":\"object\"}"));
        assertThatThrownBy(() -> registry.register(echo("echo")))
                .isInstanceOf(ToolDefinitionException.class)
                .hasMessageStartingWith("A tool named 'echo' is already registered (RawTool[echo]); cannot also register TypedTool[echo");
        assertThat(registry.list()).hasSize(1);
    }

    @Test
    void listIsSortedAndUnregisterRemoves() {
        ToolRegistry registry = ToolRegistry.create().register(echo("b")).register(echo("a")).register(echo("c"));
        assertThat(registry.names()).containsExactly("a", "b", "c");
        assertThat(registry.unregister("b")).isTrue();
        assertThat(registry.unregister("b")).isFalse();
        assertThat(registry.names()).containsExactly("a", "c");
        assertThat(registry.find("b")).isEmpty();
        assertThat(registry.find("a")).isPresent();
    }

    @Test
    void dynamicToolsAreValidatedAgainstTheirOwnSchema() {
        ToolRegistry registry = ToolRegistry.create().register(new RawTool("raw",
                "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"n\"]}"));
        ToolExecutor ex = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build();
        assertThat(ex.execute(ToolCall.of("raw", "{\"n\":0}"), ToolContext.empty()).content())
                .startsWith("Tool 'raw' arguments invalid: field 'n': ").contains("minimum");
        assertThat(ex.execute(ToolCall.of("raw", "{\"n\":2}"), ToolContext.empty()).content()).isEqualTo("raw:{\"n\":2}");
    }

    @Test
    void badDynamicSchemasAreRejectedAtRegistration() {
        ToolRegistry registry = ToolRegistry.create();
        assertThatThrownBy(() -> registry.register(new RawTool("arr", "{\"type\":\"array\"}")))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("must declare an object schema");
        assertThatThrownBy(() -> registry.register(new RawTool("ref",
                "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/x\"}}}")))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("$ref");
        assertThatThrownBy(() -> registry.register(new RawTool("has space", "{\"type\":\"object\"}")))
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("is invalid");
        assertThat(registry.list()).isEmpty();
    }

    @Test
    void pluginsAreLoadedOnlyWhenAsked() {
        ToolRegistry registry = ToolRegistry.create();
        assertThat(registry.list()).isEmpty();
        assertThat(registry.registerPlugins(getClass().getClassLoader())).isEqualTo(1);
        assertThat(registry.names()).containsExactly("plugin_echo");
    }

    @Test
    void concurrentRegistrationLosesNothing() throws Exception {
        ToolRegistry registry = ToolRegistry.create();
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < 200; i++) {
                int n = i;
                pool.submit(() -> registry.register(echo("t" + n)));
            }
        }
        assertThat(registry.list()).hasSize(200);
    }

    @Test
    void annotatedObjectWithoutGeneratedClassGetsAnActionableError() {
        assertThatThrownBy(() -> ToolRegistry.create().registerAnnotated(new Object()))
                .isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining("No generated tools for java.lang.Object")
                .hasMessageContaining("annotation processor path");
    }

    /** Registered through META-INF/services in the test resources. */
    public static final class EchoPlugin implements ToolPlugin {
        @Override
        public List<DynamicTool> tools() {
            return List.of(DynamicTool.from(echo("plugin_echo")));
        }
    }
}
