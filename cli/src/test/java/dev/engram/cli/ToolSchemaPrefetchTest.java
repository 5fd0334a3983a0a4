package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.agents.AgentRuntime;
import dev.engram.framework.DynamicTool;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;
import tools.jackson.databind.node.ObjectNode;

/**
 * The built-in tools built on another thread while {@code serve} opens its store: a runtime built at the same time
 * gets the same tools with the same schemas, and the prefetch leaves nothing behind.
 */
@Isolated // no class runs beside it: it looks for a thread by name in the whole JVM
class ToolSchemaPrefetchTest {
    @TempDir
    Path home;

    private static Map<String, ObjectNode> schemas(AgentRuntime runtime) {
        return runtime.toolRegistry().list().stream().collect(Collectors.toMap(DynamicTool::name, DynamicTool::parametersSchema));
    }

    @Test
    void aRuntimeBuiltWhileThePrefetchRunsGetsTheSameToolsAndSchemasAsOneBuiltAfter() throws Exception {
        var prefetch = ToolSchemaPrefetch.start();
        Map<String, ObjectNode> during;
        try (Engine engine = new Engine(home)) {
            during = schemas(engine.runtime());
        }
        prefetch.get(60, TimeUnit.SECONDS);
        assertThat(prefetch).isCompletedWithValue(null);
        Map<String, ObjectNode> after;
        try (Engine engine = new Engine(home.resolve("again"))) {
            after = schemas(engine.runtime());
        }
        assertThat(during).isNotEmpty().containsKeys("archival_memory_search", "send_message").isEqualTo(after);
        assertThat(during.get("archival_memory_search").path("properties").has("query")).isTrue();
    }

    @Test
    void thePrefetchWritesNothingToTheHomeAndLeavesNoThreadBehind() throws Exception {
        ToolSchemaPrefetch.start().get(60, TimeUnit.SECONDS);
        assertThat(home).isEmptyDirectory();
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("engram-tool-schemas"))
                        && System.nanoTime() < deadline; ) {
            Thread.sleep(20);
        }
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("engram-tool-schemas"));
    }
}
