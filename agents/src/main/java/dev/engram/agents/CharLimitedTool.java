package dev.engram.agents;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.ForwardingTool;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolOutput;

/**
 * A tool whose output the model sees at most {@code limit} characters of (Letta's {@code return_char_limit}), with a
 * note saying how much was cut; everything else is the tool's own ({@link ForwardingTool}).
 */
record CharLimitedTool(DynamicTool delegate, int limit) implements ForwardingTool {
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
    public String execute(String argumentsJson, ToolContext context) throws Exception {
        String text = delegate.execute(argumentsJson, context);
        return text == null ? null : cut(text, limit);
    }

    /** The tool's own output, what it did kept, its text cut (a value that is not text is the tool's as it is). */
    @Override
    public ToolOutput run(String argumentsJson, ToolContext context) throws Exception {
        ToolOutput out = delegate.run(argumentsJson, context);
        return out.value() instanceof String text
                ? new ToolOutput(cut(text, limit), out.effects(), out.userMessage(), out.metadata())
                : out;
    }
}
