package dev.engram.mcp;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The tools of an MCP server started as a stdio command, as Engram {@link DynamicTool}s named
 * {@code <prefix>_<tool>}. Register them with {@code AgentRuntime.Builder.tool} (or any
 * {@code ToolRegistry}) and name them in an agent's definition: they then go through the same policy,
 * validation, approval, timeout and truncation as every other tool.
 *
 * <p>Safety tiers follow the server's hints: {@code readOnlyHint} makes a tool read-only, but only for
 * a server connected as trusted (an untrusted server's read-only tool is side-effecting, so approval
 * is asked); otherwise a tool is privileged unless {@code destructiveHint} is explicitly false (the MCP
 * default for a tool that is not read-only is destructive).
 *
 * <pre>{@code
 * try (McpClientTools files = McpClientTools.connect("fs", List.of("npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"))) {
 *     AgentRuntime.Builder builder = AgentRuntime.builder(store, search);
 *     files.tools().forEach(builder::tool);            // fs_read_file, fs_write_file, ...
 *     AgentRuntime runtime = builder.build();
 * }
 * }</pre>
 */
public final class McpClientTools implements AutoCloseable {
    private final String prefix;
    private final McpServer server;
    private final List<DynamicTool> tools;

    private McpClientTools(String prefix, McpServer server, List<DynamicTool> tools) {
        this.prefix = prefix;
        this.server = server;
        this.tools = List.copyOf(tools);
    }

    /**
     * Starts {@code command}, initialises the session and lists its tools; calls time out after 2 minutes.
     * The server is not trusted: its {@code readOnlyHint}s are not believed (see {@link #connect(String, List, Map, Duration, boolean)}).
     */
    public static McpClientTools connect(String prefix, List<String> command) {
        return connect(prefix, command, Map.of(), Duration.ofMinutes(2), false);
    }

    /** Starts an untrusted server with extra environment variables; see {@link #connect(String, List, Map, Duration, boolean)}. */
    public static McpClientTools connect(String prefix, List<String> command, Map<String, String> environment,
            Duration timeout) {
        return connect(prefix, command, environment, timeout, false);
    }

    /**
     * Starts {@code command} with extra environment variables. A server's {@code readOnlyHint} lets its
     * tool run without approval (as {@link SafetyTier#READ_ONLY}) only when {@code trusted}: the user has
     * said this server's hints are honest. An untrusted server's tools are at least side-effecting, so
     * approval is asked as for any other write.
     *
     * @throws IllegalArgumentException if the prefix is not {@code [a-zA-Z0-9]{1,20}} or the command is empty
     * @throws IllegalStateException    if the server cannot be started or initialised
     */
    public static McpClientTools connect(String prefix, List<String> command, Map<String, String> environment,
            Duration timeout, boolean trusted) {
        Objects.requireNonNull(prefix, "prefix must not be null");
        if (!prefix.matches("[a-zA-Z0-9]{1,20}")) {
            throw new IllegalArgumentException("MCP tool prefix must be 1 to 20 letters or digits, got '" + prefix + "'");
        }
        if (command == null || command.isEmpty()) {
            throw new IllegalArgumentException("the MCP server command must not be empty");
        }
        return connect(prefix, McpServerSpec.stdio(prefix, command, environment), McpServerOptions.defaults()
                .withConnectTimeout(timeout).withCallTimeout(timeout).asTrusted(trusted));
    }

    /**
     * Connects to the server {@code spec} describes (stdio, SSE or Streamable HTTP) with those timeouts and circuit,
     * and lists its tools, named {@code <prefix>_<tool>}.
     *
     * @throws IllegalStateException if the server cannot be reached or initialised, or does not answer in time
     */
    public static McpClientTools connect(String prefix, McpServerSpec spec, McpServerOptions options) {
        McpServer server = McpServer.of(spec, options);
        try {
            server.listTools();
            return new McpClientTools(prefix, server, server.tools(prefix));
        } catch (McpServerException e) {
            server.close();
            throw new IllegalStateException("Cannot use MCP server '" + spec.describe() + "': " + e.getMessage(), e);
        }
    }

    /** The server's tools, prefixed. */
    public List<DynamicTool> tools() {
        return tools;
    }

    /** The server, with its {@link McpServer#status}. */
    public McpServer server() {
        return server;
    }

    public String prefix() {
        return prefix;
    }

    /** Ends the session and the server process. */
    @Override
    public void close() {
        server.close();
    }
}
