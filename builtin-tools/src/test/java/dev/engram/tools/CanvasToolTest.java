package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.memory.CanvasStore;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** {@code canvas} through the real pipeline: a version per call, and the limits refused as errors the model reads. */
class CanvasToolTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private final MemoryStore store = MemoryStore.inMemory();
    private final ToolRegistry registry = ToolRegistry.create().register(BuiltinTools.canvas(store));

    @AfterEach
    void tearDown() {
        store.close();
    }

    private ToolResult call(Object... keyValues) {
        java.util.Map<String, Object> args = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            args.put((String) keyValues[i], keyValues[i + 1]);
        }
        ToolContext ctx = ToolContext.builder().userId(ANA.userId()).agentId(ANA.agentId()).sessionId("s1").build();
        return ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build()
                .execute(ToolCall.of("canvas", JsonMapper.builder().build().writeValueAsString(args)), ctx);
    }

    @Test
    void eachCallStoresANewVersionAndTheResultSaysWhereItIs() {
        ToolResult first = call("name", "chart", "html", "<p>1</p>", "title", "Chart");
        ToolResult second = call("name", "chart", "html", "<p>2</p>");
        assertThat(first.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(first.content()).contains("\"version\":1", "\"path\":\"/canvas/helper/chart?version=1\"", "engram canvas open chart")
                .doesNotContain("<p>1</p>");
        assertThat(second.content()).contains("\"version\":2");
        assertThat(store.canvases().versions(ANA, "chart")).hasSize(2);
        assertThat(registry.list().getFirst().safetyTier()).isEqualTo(dev.engram.framework.SafetyTier.SIDE_EFFECTING);
    }

    @Test
    void anOversizedPageOrABadNameIsAnErrorAndNothingIsStored() {
        ToolResult big = call("name", "big", "html", "x".repeat(CanvasStore.MAX_BYTES + 1));
        assertThat(big.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(big.content()).contains("an artefact is at most " + CanvasStore.MAX_BYTES + " bytes");
        ToolResult bad = call("name", "a/b", "html", "<p/>");
        assertThat(bad.content()).contains("canvas name 'a/b' is not valid");
        assertThat(call("name", "empty", "html", "").content()).contains("empty");
        assertThat(store.canvases().list(ANA)).isEmpty();
    }
}
