package dev.engram.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code mcpServers} JSON of desktop MCP clients. */
class McpConfigFileTest {
    @TempDir
    Path dir;

    @Test
    void commandsAndUrlsBecomeSpecs() throws Exception {
        Path file = Files.writeString(dir.resolve("mcp.json"), """
                {"mcpServers": {
                  "fs": {"command": "npx", "args": ["-y", "server-fs", "/tmp"], "env": {"DEBUG": "1"}},
                  "docs": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer k"}},
                  "old": {"type": "sse", "url": "https://example.com/sse"}}}
                """);
        List<McpServerSpec> specs = McpConfigFile.read(file);
        assertThat(specs).extracting(McpServerSpec::name).containsExactly("fs", "docs", "old");
        assertThat(specs.get(0)).isEqualTo(McpServerSpec.stdio("fs", List.of("npx", "-y", "server-fs", "/tmp"), Map.of("DEBUG", "1")));
        assertThat(specs.get(1)).isEqualTo(McpServerSpec.streamableHttp("docs", "https://example.com/mcp",
                Map.of("Authorization", "Bearer k")));
        assertThat(specs.get(2).transport()).isEqualTo(McpTransport.SSE);
    }

    @Test
    void badFilesNameTheServerAndField() {
        assertThatThrownBy(() -> McpConfigFile.parse("{\"servers\": {}}", "f.json"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("f.json has no \"mcpServers\"");
        assertThatThrownBy(() -> McpConfigFile.parse("{\"mcpServers\": {\"a\": {}}}", "f.json"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("server \"a\": give either");
        assertThatThrownBy(() -> McpConfigFile.parse("{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": [1]}}}", "f.json"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"args\" must be a string");
        assertThatThrownBy(() -> McpConfigFile.parse("{\"mcpServers\": {\"a b\": {\"command\": \"x\"}}}", "f.json"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("server \"a b\"");
        assertThatThrownBy(() -> McpConfigFile.parse("not json", "f.json"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("f.json is not JSON");
    }
}
