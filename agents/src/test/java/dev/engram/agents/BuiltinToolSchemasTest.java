package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolRegistry;
import dev.engram.memory.Embedder;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.OutboundChannel;
import dev.engram.tools.SearchProvider;
import dev.engram.tools.ShellOptions;
import dev.engram.tools.Vault;
import dev.engram.tools.WebFetcher;
import dev.engram.tools.Workspace;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The built-in tools generate their schemas when first used, not when a runtime is built (a server's start builds
 * dozens): this test is where a built-in whose schema cannot be generated fails the build, as it used to fail every
 * runtime's construction. Every tool of a runtime with every optional group enabled.
 */
class BuiltinToolSchemasTest {
    @TempDir
    Path dir;

    @Test
    void everyBuiltinOfAFullyEquippedRuntimeHasAnInlinedObjectSchema() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "skipped: bwrap is not installed (apt-get install bubblewrap)");
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Path vault = Files.createDirectories(dir.resolve("vault"));
        Files.writeString(vault.resolve(Vault.MANIFEST), "{\"items\": []}");
        SearchProvider provider = new SearchProvider() {
            @Override
            public String name() {
                return "none";
            }

            @Override
            public List<WebResult> search(String query, int limit) {
                return List.of();
            }
        };
        try (MemoryStore store = MemoryStore.inMemory();
                MemorySearch search = MemorySearch.luceneInMemory(store, Embedder.unavailable("none", 4, "not needed here"));
                AgentRuntime runtime = AgentRuntime.builder(store, search).workspace(Workspace.of(ws))
                        .shell(ShellOptions.sandboxed("ls")).vault(Vault.open(vault)).web(WebFetcher.http(), List.of(provider))
                        .outboundChannel(OutboundChannel.webhook("team", URI.create("http://127.0.0.1:9/hook")))
                        .code(CodeRunner.sandboxed()).build()) {
            ToolRegistry registry = runtime.toolRegistry(); // registering compiles each schema's validator
            Map<String, DynamicTool> tools = new java.util.LinkedHashMap<>();
            registry.list().forEach(t -> tools.put(t.name(), t));
            assertThat(tools).containsKeys("send_message", "archival_memory_search", "core_memory_append", "memory",
                    "memory_save", "schedule", "canvas", "spawn_subagent", "sessions_send", "write_todos", "shell_exec",
                    "web_fetch", "web_search", "vault_list", "message", "run_code", "execute_code", "write_memory_dump",
                    "send_message_to_agent_async");
            for (DynamicTool tool : tools.values()) {
                ObjectNode schema = tool.parametersSchema();
                assertThat(schema.path("type").asString("")).as(tool.name()).isEqualTo("object");
                assertThat(schema.path("properties").isObject()).as(tool.name()).isTrue();
                assertThat(mentions(schema, "$ref") || mentions(schema, "$defs")).as(tool.name() + " is inlined").isFalse();
            }
        }
    }

    private static boolean mentions(JsonNode node, String key) {
        if (node.isObject() && node.has(key)) {
            return true;
        }
        for (JsonNode child : node) {
            if (mentions(child, key)) {
                return true;
            }
        }
        return false;
    }
}
