package dev.engram.framework;

import java.util.Optional;
import tools.jackson.databind.JsonNode;

/** A tool that can take arguments the pipeline already parsed and validated, saving a second parse. */
interface ParsedArgumentsTool {
    String executeParsed(JsonNode arguments, ToolContext context) throws Exception;

    default Optional<String> approvalPreviewParsed(JsonNode arguments, ToolContext context) throws Exception {
        return Optional.empty();
    }

    default Optional<String> approvalScopeParsed(JsonNode arguments) throws Exception {
        return Optional.empty();
    }
}
