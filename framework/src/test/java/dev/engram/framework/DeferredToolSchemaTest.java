package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@link DynamicTool#deferred}: the same tool and schema as {@link DynamicTool#from}, generated at first use; the cheap
 * checks at once; a schema that cannot be generated fails its first use, where {@code from} fails at once.
 */
class DeferredToolSchemaTest {
    /** Types used by this class only, so that no other test has put their schemas in the shared cache. */
    record Lookup(String query, Optional<Integer> limit) {
    }

    record Tree(String name, List<Tree> children) {
    }

    static final class NotARecord {
    }

    private static <I> AiTool<I, String> tool(String name, Class<I> input) {
        return AiTool.of(name, "A test tool.", input, SafetyTier.READ_ONLY, (in, c) -> "ok");
    }

    @Test
    void theSchemaIsGeneratedAtFirstUseAndIsTheOneFromGives() {
        DynamicTool deferred = DynamicTool.deferred(tool("lookup", Lookup.class));
        assertThat(((TypedTool<?, ?>) deferred).generated()).isFalse();
        assertThat(deferred.name()).isEqualTo("lookup");

        DynamicTool eager = DynamicTool.from(tool("lookup", Lookup.class));
        assertThat(((TypedTool<?, ?>) eager).generated()).isTrue();
        assertThat(deferred.parametersSchema()).isEqualTo(eager.parametersSchema());
        assertThat(((TypedTool<?, ?>) deferred).generated()).isTrue();
        assertThat(deferred.parametersSchema()).isSameAs(deferred.parametersSchema());
    }

    @Test
    void aDeferredToolIsValidatedAndCalledAsAnEagerOne() throws Exception {
        ToolExecutor executor = ToolExecutor.builder(ToolRegistry.create().register(DynamicTool.deferred(tool("lookup",
                Lookup.class)))).build();
        assertThat(executor.execute(new ToolCall("c1", "lookup", "{\"query\": \"octopus\"}"), ToolContext.empty())
                .status()).isEqualTo(ToolStatus.SUCCESS);
        ToolResult bad = executor.execute(new ToolCall("c2", "lookup", "{\"limit\": 3}"), ToolContext.empty());
        assertThat(bad.status()).isEqualTo(ToolStatus.INVALID_ARGUMENTS);
        assertThat(bad.content()).contains("query");
    }

    @Test
    void aSchemaThatCannotBeGeneratedFailsAtFirstUseWithFromsMessage() {
        assertThatThrownBy(() -> DynamicTool.from(tool("tree", Tree.class))).isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining(Tree.class.getName());
        DynamicTool deferred = DynamicTool.deferred(tool("tree", Tree.class));
        assertThatThrownBy(deferred::parametersSchema).isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining(Tree.class.getName());
        // registering is a first use: an agent given the tool fails as a runtime built with it used to
        ToolRegistry registry = ToolRegistry.create();
        assertThatThrownBy(() -> registry.register(deferred)).isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining(Tree.class.getName());
        assertThat(registry.list()).isEmpty();
    }

    @Test
    void theCheapChecksStillFailAtOnce() {
        assertThatThrownBy(() -> DynamicTool.deferred(tool("odd", NotARecord.class)))
                .isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining("neither a record nor a sealed interface of records");
    }
}
