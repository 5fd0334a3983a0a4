package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolFormat;
import dev.engram.framework.ToolRegistry;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prints every built-in tool's definition, as {@code engram tools schema} will, so a reviewer can read
 * what a model sees; and checks that each one is complete.
 */
class ToolSchemasPrintTest {
    @TempDir
    Path dir;

    /** Embeds nothing: the schemas do not depend on the model. */
    private static final Embedder NONE = new Embedder() {
        @Override
        public String id() {
            return "none";
        }

        @Override
        public int dimensions() {
            return 3;
        }

        @Override
        public List<float[]> embed(List<String> texts) {
            return texts.stream().map(t -> new float[] {1, 0, 0}).toList();
        }
    };

    @Test
    void everyBuiltInToolHasADescriptionAndAnInlinedSchema() {
        try (MemoryStore store = MemoryStore.inMemory(); MemorySearch search = MemorySearch.luceneInMemory(store, NONE)) {
            Workspace ws = Workspace.of(dir);
            ToolRegistry registry = ToolRegistry.create()
                    .registerAll(BuiltinTools.memory(store, search, PermissionBroker.denyAll()))
                    .registerAll(BuiltinTools.notes(store, search))
                    .register(BuiltinTools.sendMessage(MessageRouter.to(m -> { })))
                    .registerAll(BuiltinTools.files(ws))
                    .register(BuiltinTools.shell(ws, ShellOptions.disabled()))
                    .registerAll(BuiltinTools.web(WebFetcher.http(), List.of(SearchProviders.searxng(java.net.URI.create("http://127.0.0.1:1")))));
            assertThat(registry.names()).containsExactly("block", "file_delete", "file_edit", "file_list", "file_read",
                    "file_search", "file_write", "glob", "memory_delete", "memory_save", "memory_search", "memory_update", "read_many_files",
                    "recall", "search", "send_message", "shell_exec", "web_fetch", "web_search");
            for (DynamicTool t : registry.list()) {
                assertThat(t.description()).as(t.name()).hasSizeGreaterThan(40);
                assertThat(t.parametersSchema().toString()).as(t.name()).doesNotContain("$ref", "$defs");
            }
            System.out.println(registry.toolsJson(ToolFormat.OPENAI).toPrettyString());
        }
    }
}
