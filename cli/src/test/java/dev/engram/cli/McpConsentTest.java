package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.mcp.McpClientTools;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code engram mcp} asks its client's user for consent to a write of a human block through MCP elicitation, and
 * refuses the write, saying why, when the client does not support elicitation.
 */
@Execution(ExecutionMode.CONCURRENT) // beside the in-process classes: it mostly waits for its child processes
class McpConsentTest {
    private static final String APPEND = "{\"operation\":\"append\",\"label\":\"diary\",\"text\":\"Ana met Ben\"}";

    @TempDir
    Path home;

    @BeforeEach
    void agentWithAHumanBlock() {
        assertThat(Cli.run(home, "agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini").exit()).isZero();
        Cli.Run set = Cli.run(home, "block", "set", "diary", "Ana's diary.", "--agent", "helper", "--user", "ana",
                "--permission", "human");
        assertThat(set.exit()).as(set.err()).isZero();
    }

    private List<String> engramMcp() {
        return EngramChild.command(home, "mcp", "--user", "ana", "--agent", "helper");
    }

    private String diary() {
        return Cli.run(home, "block", "show", "diary", "--agent", "helper", "--user", "ana").out();
    }

    /** A client that declares elicitation and answers every form with {@code allow}. */
    private McpSyncClient client(boolean allow, List<McpSchema.ElicitRequest> asked) {
        List<String> cmd = engramMcp();
        ServerParameters params = ServerParameters.builder(cmd.getFirst()).args(cmd.subList(1, cmd.size())).build();
        McpSyncClient client = McpClient.sync(new StdioClientTransport(params, new JacksonMcpJsonMapper(JsonMapper.builder().build())))
                .requestTimeout(Duration.ofMinutes(2)).initializationTimeout(Duration.ofMinutes(2))
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                .elicitation(request -> {
                    asked.add(request);
                    return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of("allow", allow));
                }).build();
        client.initialize();
        return client;
    }

    private static McpSchema.CallToolResult append(McpSyncClient client) {
        return client.callTool(new McpSchema.CallToolRequest("block", Map.of("operation", "append", "label", "diary",
                "text", "Ana met Ben")));
    }

    private static String text(McpSchema.CallToolResult r) {
        return ((McpSchema.TextContent) r.content().getFirst()).text();
    }

    @Test
    void aClientWithElicitationIsAskedAndTheWriteHappensOnlyWhenItsUserAllows() {
        List<McpSchema.ElicitRequest> asked = new CopyOnWriteArrayList<>();
        try (McpSyncClient no = client(false, asked)) {
            McpSchema.CallToolResult r = append(no);
            assertThat(r.isError()).as(text(r)).isTrue();
            assertThat(text(r)).contains("consent").contains("was not given").contains("Nothing was changed");
        }
        assertThat(asked).singleElement().satisfies(q -> assertThat(q.message()).contains("wants to append")
                .contains("block 'diary'").contains("permission human").contains("Ana met Ben"));
        assertThat(diary()).contains("Ana's diary.").doesNotContain("Ana met Ben");

        try (McpSyncClient yes = client(true, asked)) {
            McpSchema.CallToolResult r = append(yes);
            assertThat(r.isError()).as(text(r)).isFalse();
        }
        assertThat(asked).hasSize(2);
        assertThat(diary()).contains("Ana met Ben");
    }

    @Test
    void aClientWithoutElicitationGetsTheWriteRefusedSayingWhy() {
        try (McpClientTools mcp = McpClientTools.connect("mem", engramMcp(), Map.of(), Duration.ofMinutes(2), true)) {
            DynamicTool block = mcp.tools().stream().filter(t -> t.name().equals("mem_block")).findFirst().orElseThrow();
            assertThatThrownBy(() -> block.execute(APPEND, ToolContext.empty())).isInstanceOf(ToolException.class)
                    .hasMessageContaining("does not support elicitation").hasMessageContaining("Nothing was changed");
        }
        assertThat(diary()).contains("Ana's diary.").doesNotContain("Ana met Ben");
    }
}
