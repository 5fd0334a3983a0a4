package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.mcp.StubMcpServer;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code engram chat --mcp} and {@code --mcp-config}: the servers' tools for the session, a stalled server's call
 * answered with an error at {@code --mcp-timeout}, and the agent without the tools afterwards. The {@code @Timeout}
 * only guards against a hang.
 */
@Timeout(300)
class McpChatTest {
    @TempDir
    Path home;

    @TempDir
    Path work;

    @AfterEach
    void reset() {
        ChatCommand.testInput = null;
    }

    private static String quoted(List<String> command) {
        return String.join(" ", command.stream().map(w -> "'" + w + "'").toList());
    }

    @Test
    void anMcpCommandsToolsAreTheAgentsForTheSession() throws Exception {
        Path script = Files.writeString(work.resolve("chat.json"), """
                {"turns": [
                  {"tool_calls": [{"name": "echo_echo", "arguments": {"text": "hi", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "It said it back."}}],
                   "expect_in_prompt": ["echo: hi"]}
                ]}""");
        ChatCommand.testInput = new ByteArrayInputStream("Echo hi\ny\n/exit\n".getBytes(StandardCharsets.UTF_8));
        Cli.Run r = Cli.ok(home, "chat", "--user", "ana", "--model", "script:" + script, "--mcp",
                "echo=" + quoted(StubMcpServer.command("ok")), "--mcp-connect-timeout", "3m");
        assertThat(r.out()).contains("has echo_echo for this session (MCP)", "It said it back.");
        assertThat(Cli.ok(home, "agent", "show", "assistant", "--user", "ana").out()).doesNotContain("echo_echo");
    }

    @Test
    void aStalledServerOfAConfigFileAnswersTheCallWithAnErrorAndTheChatGoesOn() throws Exception {
        List<String> command = StubMcpServer.command("stall");
        Path config = work.resolve("mcp.json");
        JsonMapper json = JsonMapper.builder().build();
        Files.writeString(config, json.writeValueAsString(Map.of("mcpServers", Map.of("slow",
                Map.of("command", command.getFirst(), "args", command.subList(1, command.size()))))));
        Path script = Files.writeString(work.resolve("chat.json"), """
                {"turns": [
                  {"tool_calls": [{"name": "slow_echo", "arguments": {"text": "hi", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "The server did not answer."}}],
                   "expect_in_prompt": ["did not answer within 2 s"]}
                ]}""");
        ChatCommand.testInput = new ByteArrayInputStream("Echo hi\ny\n/exit\n".getBytes(StandardCharsets.UTF_8));
        Cli.Run r = Cli.ok(home, "chat", "--user", "ana", "--model", "script:" + script, "--mcp-config", config.toString(),
                "--mcp-timeout", "2s", "--mcp-connect-timeout", "3m");
        assertThat(r.out()).contains("has slow_echo for this session (MCP)", "The server did not answer.");
    }

    @Test
    void badMcpFlagsAreOneLineErrors() throws Exception {
        Cli.oneLineError(Cli.run(home, "chat", "--model", "script:x.json", "--mcp", "'unclosed"), 1, "unclosed quote");
        Path config = Files.writeString(work.resolve("bad.json"), "{\"servers\": {}}");
        Cli.oneLineError(Cli.run(home, "chat", "--model", "script:x.json", "--mcp-config", config.toString()), 1,
                "no \"mcpServers\" object");
        Cli.oneLineError(Cli.run(home, "chat", "--model", "script:x.json", "--mcp", "true", "--mcp-timeout", "soon"), 1,
                "--mcp-timeout is a duration");
    }
}
