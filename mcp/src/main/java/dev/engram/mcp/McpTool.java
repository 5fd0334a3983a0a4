package dev.engram.mcp;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * One tool of an MCP server as an Engram tool named {@code <prefix>_<tool>}. Safety tiers follow the server's hints:
 * {@code readOnlyHint} makes a tool read-only only for a trusted server (an untrusted server's read-only tool is
 * side-effecting, so approval is asked); otherwise a tool is privileged unless {@code destructiveHint} is explicitly
 * false (the MCP default for a tool that is not read-only is destructive).
 */
final class McpTool implements DynamicTool {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private final String name;
    private final McpServer server;
    private final McpSchema.Tool tool;
    private final ObjectNode schema;
    private final SafetyTier tier;

    McpTool(String prefix, McpServer server, McpSchema.Tool tool, boolean trusted) {
        this.name = name(prefix, tool.name());
        this.server = server;
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

    static String name(String prefix, String mcpName) {
        String n = prefix + "_" + mcpName.replaceAll("[^a-zA-Z0-9_-]", "_");
        return n.length() > 64 ? n.substring(0, 64) : n;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        String d = tool.description() == null ? "" : tool.description();
        return d + (d.isEmpty() ? "" : " ") + "(MCP tool '" + tool.name() + "' of server '" + server.spec().name() + "')";
    }

    @Override
    public ObjectNode parametersSchema() {
        return schema;
    }

    @Override
    public SafetyTier safetyTier() {
        return tier;
    }

    /** Longer than the server's own connect and call timeouts, so that theirs, with the clearer message, fire first. */
    @Override
    public Duration timeout() {
        return server.options().connectTimeout().plus(server.options().callTimeout()).plusSeconds(5);
    }

    @Override
    @SuppressWarnings("unchecked")
    public String execute(String argumentsJson, ToolContext context) {
        return server.call(tool.name(), MAPPER.readValue(argumentsJson, Map.class));
    }
}
