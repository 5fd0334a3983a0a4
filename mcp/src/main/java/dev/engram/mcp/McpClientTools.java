package dev.engram.mcp;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

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
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private final String prefix;
    private final McpSyncClient client;
    private final List<DynamicTool> tools;

    private McpClientTools(String prefix, McpSyncClient client, List<DynamicTool> tools) {
        this.prefix = prefix;
        this.client = client;
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
        ServerParameters params = ServerParameters.builder(command.getFirst()).args(command.subList(1, command.size()))
                .env(environment).build();
        JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(JsonMapper.builder().build());
        McpSyncClient client = McpClient.sync(new StdioClientTransport(params, mapper)).requestTimeout(timeout)
                .initializationTimeout(timeout).clientInfo(new McpSchema.Implementation("engram", "0.1.0")).build();
        try {
            client.initialize();
            List<DynamicTool> tools = new ArrayList<>();
            String cursor = null;
            do {
                McpSchema.ListToolsResult page = cursor == null ? client.listTools() : client.listTools(cursor);
                for (McpSchema.Tool t : page.tools()) {
                    tools.add(new Remote(prefix, client, t, trusted));
                }
                cursor = page.nextCursor();
            } while (cursor != null && !cursor.isEmpty());
            return new McpClientTools(prefix, client, tools);
        } catch (RuntimeException e) {
            client.close();
            throw new IllegalStateException("Cannot use MCP server '" + String.join(" ", command) + "': "
                    + sentence(e), e);
        }
    }

    /** The server's tools, prefixed. */
    public List<DynamicTool> tools() {
        return tools;
    }

    public String prefix() {
        return prefix;
    }

    /** Ends the session and the server process. */
    @Override
    public void close() {
        client.close();
    }

    /** One remote tool. */
    private static final class Remote implements DynamicTool {
        private final String name;
        private final McpSyncClient client;
        private final McpSchema.Tool tool;
        private final ObjectNode schema;
        private final SafetyTier tier;

        Remote(String prefix, McpSyncClient client, McpSchema.Tool tool, boolean trusted) {
            String n = prefix + "_" + tool.name().replaceAll("[^a-zA-Z0-9_-]", "_");
            this.name = n.length() > 64 ? n.substring(0, 64) : n;
            this.client = client;
            this.tool = tool;
            ObjectNode s = MAPPER.valueToTree(tool.inputSchema() == null ? Map.of("type", "object") : tool.inputSchema());
            if (!s.has("type")) {
                s.put("type", "object");
            }
            this.schema = s;
            McpSchema.ToolAnnotations a = tool.annotations();
            if (a != null && Boolean.TRUE.equals(a.readOnlyHint())) {
                tier = trusted ? SafetyTier.READ_ONLY : SafetyTier.SIDE_EFFECTING;
            } else if (a != null && Boolean.FALSE.equals(a.destructiveHint())) {
                tier = SafetyTier.SIDE_EFFECTING;
            } else {
                tier = SafetyTier.PRIVILEGED;
            }
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String description() {
            String d = tool.description() == null ? "" : tool.description();
            return d + (d.isEmpty() ? "" : " ") + "(MCP tool '" + tool.name() + "')";
        }

        @Override
        public ObjectNode parametersSchema() {
            return schema;
        }

        @Override
        public SafetyTier safetyTier() {
            return tier;
        }

        @Override
        @SuppressWarnings("unchecked")
        public String execute(String argumentsJson, ToolContext context) {
            Map<String, Object> args = MAPPER.readValue(argumentsJson, Map.class);
            McpSchema.CallToolResult result = client.callTool(new McpSchema.CallToolRequest(tool.name(), args));
            String text = result.content() == null ? "" : result.content().stream()
                    .map(c -> c instanceof McpSchema.TextContent t ? t.text() : "[" + c.type() + " content]")
                    .collect(Collectors.joining("\n"));
            if (Boolean.TRUE.equals(result.isError())) {
                throw new ToolException(text.isBlank() ? "The MCP tool '" + tool.name() + "' failed." : text);
            }
            return text;
        }
    }

    /** The first non-blank message in the cause chain, as one sentence. */
    private static String sentence(Throwable t) {
        Throwable e = t;
        while ((e.getMessage() == null || e.getMessage().isBlank()) && e.getCause() != null) {
            e = e.getCause();
        }
        String message = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
        String line = message.strip().replaceAll("\\s*\\n\\s*", " ");
        return line.endsWith(".") ? line : line + ".";
    }
}
