package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentEvent;
import dev.engram.agents.AgentResponse;
import dev.engram.agents.AgentRuntime;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.mcp.McpClientTools;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.lucene.LuceneMemorySearch;
import dev.engram.memory.MemorySearch;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code engram mcp} as a real stdio process, spoken to by the MCP Java SDK's client. */
class McpTest {
    @TempDir
    Path home;

    @TempDir
    Path other;

    /** The command that starts {@code engram mcp} in a new JVM with this test's classpath. */
    private List<String> engramMcp(String... args) {
        List<String> cmd = new ArrayList<>(List.of("mcp"));
        cmd.addAll(List.of(args));
        return EngramChild.command(home, cmd.toArray(String[]::new));
    }

    @Test
    void theServerListsTheScopesMemoryToolsWithHintsAndRunsCalls() throws Exception {
        assertThat(Cli.run(home, "agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini").exit()).isZero();
        try (McpClientTools mcp = McpClientTools.connect("mem", engramMcp("--user", "ana", "--agent", "helper"), Map.of(),
                Duration.ofMinutes(2), true)) {
            Map<String, DynamicTool> tools = mcp.tools().stream().collect(Collectors.toMap(DynamicTool::name, t -> t));
            assertThat(tools.keySet()).containsExactlyInAnyOrder("mem_search", "mem_memory_search", "mem_memory_save",
                    "mem_memory_update", "mem_memory_delete", "mem_recall", "mem_block");
            assertThat(tools.get("mem_search").safetyTier()).as("a trusted server's read-only hint").isEqualTo(SafetyTier.READ_ONLY);
            assertThat(tools.get("mem_memory_save").safetyTier()).isEqualTo(SafetyTier.SIDE_EFFECTING);
            assertThat(tools.get("mem_block").parametersSchema().toString()).contains("\"operation\"").doesNotContain("$ref");

            ToolContext ctx = ToolContext.empty();
            assertThat(tools.get("mem_memory_save").execute("{\"content\":\"Ana's report is due March 3\"}", ctx))
                    .contains("note-");
            assertThat(tools.get("mem_block").execute(
                    "{\"operation\":\"append\",\"label\":\"human\",\"text\":\"Name: Ana\"}", ctx)).isNotBlank();
            assertThat(tools.get("mem_memory_search").execute("{\"query\":\"when is the report due\"}", ctx))
                    .contains("Ana's report is due March 3");
            // A pipeline error comes back as an MCP error result, and reads as a tool error here.
            assertThatThrownBy(() -> tools.get("mem_block").execute("{\"operation\":\"append\"}", ctx))
                    .isInstanceOf(ToolException.class).hasMessageContaining("arguments invalid");
        }
        assertThat(Cli.run(home, "block", "show", "human", "--agent", "helper", "--user", "ana").out()).contains("Name: Ana");
        assertThat(Cli.run(home, "notes", "list", "--user", "ana").out()).contains("Ana's report is due March 3");
    }

    @Test
    void aCallSentJustBeforeTheClientClosesItsInputIsStillAnswered() throws Exception {
        Process server = new ProcessBuilder(engramMcp("--user", "ana")).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (var stdin = server.getOutputStream()) {
            stdin.write(("""
                    {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}
                    {"jsonrpc":"2.0","method":"notifications/initialized"}
                    {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_save","arguments":{"content":"saved at the last moment"}}}
                    """).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } // the client closes its side at once
        String out = new String(server.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(server.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(out.lines().map(Json::parse).filter(n -> n.path("id").asInt() == 2).findFirst())
                .as("the answer to the last call, in: " + out).hasValueSatisfying(n ->
                        assertThat(n.at("/result/content/0/text").asString()).contains("note-"));
        assertThat(Cli.run(home, "notes", "list", "--user", "ana").out()).contains("saved at the last moment");
    }

    @Test
    void withoutAnAgentOnlyTheUsersNotesAreServed() {
        try (McpClientTools mcp = McpClientTools.connect("notes", engramMcp("--user", "ana"))) {
            assertThat(mcp.tools()).extracting(DynamicTool::name).containsExactlyInAnyOrder("notes_memory_search",
                    "notes_memory_save", "notes_memory_update", "notes_memory_delete");
            // An untrusted server's read-only hint does not spare its tool the approval other writes get.
            assertThat(mcp.tools().stream().filter(t -> t.name().equals("notes_memory_search")).findFirst().orElseThrow()
                    .safetyTier()).isEqualTo(SafetyTier.SIDE_EFFECTING);
        }
    }

    @Test
    void anAgentUsesMcpToolsUnderItsPolicyAndApproval() throws Exception {
        assertThat(Cli.run(home, "agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini").exit()).isZero();
        try (McpClientTools mcp = McpClientTools.connect("remote", engramMcp("--user", "ana", "--agent", "helper"));
                MemoryStore store = MemoryStore.sqlite(other.resolve("memory.db"));
                OnnxEmbedder embedder = OnnxEmbedder.builder(EmbeddingModel.ALL_MINILM_L6_V2_Q).build();
                MemorySearch search = LuceneMemorySearch.builder(store, embedder).backgroundInterval(Duration.ZERO).build()) {
            ScriptedChatModel model = ScriptedChatModel.fromJson("""
                    {"turns": [
                      {"tool_calls": [{"name": "remote_memory_save", "arguments": {"content": "Saved through MCP", "request_heartbeat": true}},
                                      {"name": "remote_recall", "arguments": {"operation": "read", "label": "nothing"}}]},
                      {"tool_calls": [{"name": "send_message", "arguments": {"message": "done"}}]}
                    ]}""");
            List<AgentEvent.ApprovalRequested> asked = new ArrayList<>();
            AgentRuntime.Builder b = AgentRuntime.builder(store, search).model("script:mcp", model)
                    .approvalHandler(req -> CompletableFuture.completedFuture(ApprovalDecision.approve()))
                    .listener(e -> {
                        if (e instanceof AgentEvent.ApprovalRequested a) {
                            asked.add(a);
                        }
                    });
            mcp.tools().forEach(b::tool);
            try (AgentRuntime runtime = b.build()) {
                var agent = runtime.create(AgentDefinition.builder("zoe").id("local").model("script:mcp")
                        .tools("send_message", "remote_memory_save", "remote_recall").denyTools("remote_recall").build());
                AgentResponse r = agent.send("save it remotely");
                assertThat(r.reply()).contains("done");
                assertThat(r.toolResults()).extracting(t -> t.status())
                        .containsExactly(ToolStatus.SUCCESS, ToolStatus.DENIED_BY_POLICY, ToolStatus.SUCCESS);
                assertThat(asked).extracting(a -> a.request().toolName()).containsExactly("remote_memory_save");
            }
        }
        assertThat(Cli.run(home, "notes", "list", "--user", "ana").out()).contains("Saved through MCP");
    }
}
