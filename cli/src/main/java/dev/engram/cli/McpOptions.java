package dev.engram.cli;

import dev.engram.agents.AgentRuntime;
import dev.engram.framework.DynamicTool;
import dev.engram.mcp.McpClientTools;
import dev.engram.mcp.McpConfigFile;
import dev.engram.mcp.McpServerOptions;
import dev.engram.mcp.McpServerSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code --mcp 'COMMAND…'} (repeatable) and {@code --mcp-config FILE}: MCP servers whose tools the chat's agent has for
 * this session, each server with connect and call timeouts and a circuit ({@link McpServerOptions#defaults()}), so a
 * server that stalls or crashes answers its calls with an error rather than hanging the chat.
 */
final class McpOptions implements AutoCloseable {
    @Option(names = "--mcp", paramLabel = "[NAME=]COMMAND", description = "Give the agent the tools of this MCP server, "
            + "started over stdio for this session (repeatable; quote the command: --mcp 'fs=npx -y "
            + "@modelcontextprotocol/server-filesystem /tmp'). Its tools are named NAME_<tool> (mcp1_, mcp2_... without NAME).")
    List<String> commands = new ArrayList<>();

    @Option(names = "--mcp-config", paramLabel = "FILE", description = "Give the agent the tools of the MCP servers this "
            + "file names, in the mcpServers JSON of desktop MCP clients (command/args/env, or url/headers).")
    Path config;

    @Option(names = "--mcp-timeout", paramLabel = "DURATION", defaultValue = "60s", description = "How long one call "
            + "to an MCP server may take before it is abandoned and the model told so (e.g. 30s, 2m; default ${DEFAULT-VALUE}).")
    String timeout;

    @Option(names = "--mcp-connect-timeout", paramLabel = "DURATION", defaultValue = "30s", description = "How long "
            + "starting an MCP server and listing its tools may take (default ${DEFAULT-VALUE}).")
    String connectTimeout;

    private final List<McpClientTools> connected = new ArrayList<>();

    /** The servers the flags name, in order; none without flags. */
    List<McpServerSpec> specs() {
        List<McpServerSpec> specs = new ArrayList<>();
        for (int i = 0; i < commands.size(); i++) {
            String text = commands.get(i).strip();
            String name = "mcp" + (i + 1);
            int eq = text.indexOf('=');
            int space = text.indexOf(' ');
            if (eq > 0 && (space < 0 || eq < space)) {
                name = text.substring(0, eq);
                text = text.substring(eq + 1).strip();
            }
            specs.add(McpServerSpec.stdio(name, words(text), Map.of()));
        }
        if (config != null) {
            specs.addAll(McpConfigFile.read(config));
        }
        return specs;
    }

    /**
     * Connects to every server and registers its tools with the runtime being built; returns the tools' names.
     *
     * @throws IllegalStateException if a server cannot be started or does not answer, naming it
     */
    List<String> apply(AgentRuntime.Builder b) {
        List<String> names = new ArrayList<>();
        Duration callTimeout = DurationText.parse(timeout).filter(d -> !d.isZero()).orElseThrow(() ->
                new IllegalArgumentException("--mcp-timeout is a duration such as 30s or 2m, not '" + timeout + "'"));
        Duration connect = DurationText.parse(connectTimeout).filter(d -> !d.isZero()).orElseThrow(() ->
                new IllegalArgumentException("--mcp-connect-timeout is a duration such as 30s or 2m, not '" + connectTimeout
                        + "'"));
        McpServerOptions options = McpServerOptions.defaults().withCallTimeout(callTimeout).withConnectTimeout(connect);
        for (McpServerSpec spec : specs()) {
            McpClientTools tools = McpClientTools.connect(spec.name(), spec, options);
            connected.add(tools);
            for (DynamicTool t : tools.tools()) {
                b.tool(t);
                names.add(t.name());
            }
        }
        return names;
    }

    boolean any() {
        return !commands.isEmpty() || config != null;
    }

    /** Ends every server's session (and a stdio server's process). */
    @Override
    public void close() {
        connected.forEach(McpClientTools::close);
        connected.clear();
    }

    /** A command line split into words: spaces separate, single or double quotes keep spaces in a word. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        char quote = 0;
        boolean inWord = false;
        for (char c : line.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("--mcp '" + line + "' has an unclosed quote");
        }
        if (inWord) {
            words.add(word.toString());
        }
        if (words.isEmpty()) {
            throw new IllegalArgumentException("--mcp needs a command, such as --mcp 'npx -y @modelcontextprotocol/server-memory'");
        }
        return words;
    }
}
