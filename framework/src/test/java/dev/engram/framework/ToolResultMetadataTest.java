package dev.engram.framework;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.TestTools.Counting;
import dev.engram.framework.TestTools.Echo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ToolResultMetadataTest {
    @Test
    void aToolsOutputMetadataReachesItsResultButNotTheModel() {
        ToolRegistry registry = ToolRegistry.create().register(Counting.of("run", Echo.class, SafetyTier.READ_ONLY,
                (in, ctx) -> ToolOutput.of("ran " + in.text()).withMetadata("exit_code", 0)
                        .withMetadata("files", List.of("a.txt", "b.txt"))));

        ToolResult r = ToolExecutor.builder(registry).build().execute(new ToolCall("c", "run", "{\"text\":\"x\"}"),
                ToolContext.empty());

        assertThat(r.content()).isEqualTo("ran x");
        assertThat(r.metadata()).containsExactly(Map.entry("exit_code", 0), Map.entry("files", List.of("a.txt", "b.txt")));
    }

    @Test
    void metadataIsCopiedDeeplyAndCannotBeChanged() {
        List<Object> files = new ArrayList<>(List.of("a"));
        Map<String, Object> given = new LinkedHashMap<>();
        given.put("files", files);
        ToolResult r = new ToolResult("c", "t", "x", ToolStatus.SUCCESS, Duration.ZERO, false, 1, Set.of(), Optional.empty(), given);

        files.add("b");
        given.put("other", 1);

        assertThat(r.metadata()).containsExactly(Map.entry("files", List.of("a")));
        assertThatThrownBy(() -> r.metadata().put("k", "v")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> ((List<Object>) r.metadata().get("files")).add("c"))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void theOldConstructorsStillWorkWithoutMetadata() {
        ToolResult r = new ToolResult("c", "t", "x", ToolStatus.SUCCESS, Duration.ZERO, false, 1, Set.of(), Optional.empty());
        ToolOutput o = new ToolOutput("x", Set.of(), Optional.empty());

        assertThat(r.metadata()).isEmpty();
        assertThat(o.metadata()).isEmpty();
        assertThat(r.withMetadata("k", "v").asError(ToolStatus.TOOL_ERROR, "no").metadata()).containsEntry("k", "v");
    }

    @Test
    void valuesThatAreNotJsonSafeAreRejectedAndNothingChanges() {
        ToolOutput o = ToolOutput.of("x").withMetadata("ok", true);

        assertThatThrownBy(() -> o.withMetadata("when", new Object())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("metadata 'when' must be JSON-safe");
        assertThatThrownBy(() -> o.withMetadata("n", Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.withMetadata(" ", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("non-blank");
        assertThatThrownBy(() -> o.withMetadata("nested", Map.of("a", List.of(new Object()))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("metadata 'nested.a[0]'");
        assertThat(o.metadata()).containsExactly(Map.entry("ok", true));
    }
}
