package dev.engram.framework;

import java.util.Optional;
import tools.jackson.databind.JsonNode;

/** A tool that can take arguments the pipeline already parsed and validated, saving a second parse. */
interface ParsedArgumentsTool {
    String executeParsed(JsonNode arguments, ToolContext context) throws Exception;

    /** {@link DynamicTool#run} on parsed arguments; defaults to {@link #executeParsed} without effects. */
    default ToolOutput runParsed(JsonNode arguments, ToolContext context) throws Exception {
        String text = executeParsed(arguments, context);
        return ToolOutput.of(text == null ? "OK" : text);
    }

    default Optional<String> approvalPreviewParsed(JsonNode arguments, ToolContext context) throws Exception {
        return Optional.empty();
    }

    default Optional<String> approvalScopeParsed(JsonNode arguments) throws Exception {
        return Optional.empty();
    }
}
