package dev.engram.framework;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/** {@link DynamicTool#withTimeout}: a tool with another timeout, forwarding everything else (the parsed-arguments path too). */
record RetimedTool(DynamicTool tool, Duration timeout) implements ForwardingTool, ParsedArgumentsTool {
    static DynamicTool of(DynamicTool tool, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout of tool '" + tool.name() + "' must be positive, got " + timeout);
        }
        return new RetimedTool(tool instanceof RetimedTool r ? r.tool() : tool, timeout);
    }

    @Override
    public DynamicTool delegate() {
        return tool;
    }

    @Override
    public Duration timeout() {
        return timeout;
    }

    @Override
    public Optional<String> approvalScopeParsed(JsonNode arguments) throws Exception {
        return tool instanceof ParsedArgumentsTool parsed ? parsed.approvalScopeParsed(arguments)
                : tool.approvalScope(Json.MAPPER.writeValueAsString(arguments));
    }

    @Override
    public String executeParsed(JsonNode arguments, ToolContext context) throws Exception {
        return tool instanceof ParsedArgumentsTool parsed ? parsed.executeParsed(arguments, context)
                : tool.execute(Json.MAPPER.writeValueAsString(arguments), context);
    }

    @Override
    public ToolOutput runParsed(JsonNode arguments, ToolContext context) throws Exception {
        return tool instanceof ParsedArgumentsTool parsed ? parsed.runParsed(arguments, context)
                : tool.run(Json.MAPPER.writeValueAsString(arguments), context);
    }

    @Override
    public Optional<String> approvalPreviewParsed(JsonNode arguments, ToolContext context) throws Exception {
        return tool instanceof ParsedArgumentsTool parsed ? parsed.approvalPreviewParsed(arguments, context)
                : tool.approvalPreview(Json.MAPPER.writeValueAsString(arguments), context);
    }
}
