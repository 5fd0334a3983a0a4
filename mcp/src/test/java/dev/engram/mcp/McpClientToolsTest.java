package dev.engram.mcp;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to the MCP client. Its round trip against a real server (Engram's own {@code engram mcp})
 * is tested in the cli module, where that server lives.
 */
class McpClientToolsTest {
    @TempDir
    Path home;

    @Test
    void aBadServerCommandIsAClearError() {
        assertThatThrownBy(() -> McpClientTools.connect("x", List.of(home.resolve("no-such-server").toString()), Map.of(),
                Duration.ofSeconds(10))).isInstanceOf(IllegalStateException.class).hasMessageContaining("Cannot use MCP server");
        assertThatThrownBy(() -> McpClientTools.connect("bad prefix", List.of("true")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prefix");
    }

    @Test
    void anEmptyCommandIsRejected() {
        assertThatThrownBy(() -> McpClientTools.connect("fs", List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("command");
    }
}
