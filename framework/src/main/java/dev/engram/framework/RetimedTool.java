package dev.engram.framework;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@link DynamicTool#withTimeout}: a tool with another timeout, forwarding everything else. */
record RetimedTool(DynamicTool tool, Duration timeout) implements DynamicTool, ParsedArgumentsTool {
    static DynamicTool of(DynamicTool tool, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout must not be null");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout of tool '" + tool.name() + "' must be positive, got " + timeout);
        }
        return new RetimedTool(tool instanceof RetimedTool r ? r.tool() : tool, timeout);
    }

    @Override
    public String name() {
        return tool.name();
    }

    @Override
    public String description() {
        return tool.description();
    }

    @Override
    public ObjectNode parametersSchema() {
        return tool.parametersSchema();
    }

    @Override
    public SafetyTier safetyTier() {
        return tool.safetyTier();
    }

    @Override
    public boolean alwaysNeedsApproval() {
        return tool.alwaysNeedsApproval();
    }

    @Override
    public Truncation truncation() {
        return tool.truncation();
    }

    @Override
    public String execute(String argumentsJson, ToolContext context) throws Exception {
        return tool.execute(argumentsJson, context);
    }

    @Override
    public ToolOutput run(String argumentsJson, ToolContext context) throws Exception {
        return tool.run(argumentsJson, context);
    }

    @Override
    public Optional<String> userMessageArgument() {
        return tool.userMessageArgument();
    }

    @Override
    public Optional<String> approvalPreview(String argumentsJson, ToolContext context) throws Exception {
        return tool.approvalPreview(argumentsJson, context);
    }

    @Override
    public Optional<String> approvalScope(String argumentsJson) throws Exception {
        return tool.approvalScope(argumentsJson);
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
