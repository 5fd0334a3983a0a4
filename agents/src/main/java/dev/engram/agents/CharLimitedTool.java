package dev.engram.agents;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.Truncation;
import java.time.Duration;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool whose output the model sees at most {@code limit} characters of (Letta's {@code return_char_limit}), with a
 * note saying how much was cut; everything else is the tool's own.
 */
final class CharLimitedTool implements DynamicTool {
    private final DynamicTool tool;
    private final int limit;

    private CharLimitedTool(DynamicTool tool, int limit) {
        this.tool = tool;
        this.limit = limit;
    }

    /** @throws IllegalArgumentException unless the limit is positive */
    static DynamicTool of(DynamicTool tool, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("a tool's return character limit must be positive, got " + limit);
        }
        return new CharLimitedTool(tool, limit);
    }

    /** The text cut to {@code limit} characters (code points), with a note when it was cut. */
    static String cut(String text, int limit) {
        int length = text.codePointCount(0, text.length());
        if (length <= limit) {
            return text;
        }
        return text.substring(0, text.offsetByCodePoints(0, limit)) + "\n[output cut to this tool's return limit of " + limit
                + " characters, from " + length + "]";
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
    public Duration timeout() {
        return tool.timeout();
    }

    @Override
    public Truncation truncation() {
        return tool.truncation();
    }

    @Override
    public String execute(String argumentsJson, ToolContext context) throws Exception {
        return cut(tool.execute(argumentsJson, context), limit);
    }

    @Override
    public Optional<String> approvalPreview(String argumentsJson, ToolContext context) throws Exception {
        return tool.approvalPreview(argumentsJson, context);
    }

    @Override
    public Optional<String> approvalScope(String argumentsJson) throws Exception {
        return tool.approvalScope(argumentsJson);
    }
}
