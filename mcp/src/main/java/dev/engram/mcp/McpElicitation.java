package dev.engram.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How Engram's MCP client answers a server's elicitation: a form the server asks the client's user to fill in during a
 * call. A server given one is told, at initialisation, that the client supports elicitation (form mode); a server
 * without one is told nothing, and must not ask.
 */
@FunctionalInterface
public interface McpElicitation {
    /** The answer to one form: accept with content, decline or cancel. Called on the client's thread; may block. */
    McpSchema.ElicitResult answer(McpSchema.ElicitFormRequest request);

    /**
     * Accepts every form with the defaults its schema declares, and nothing else, as an unattended client does (a
     * scripted turn; the conformance suite's {@code elicitation-sep1034-client-defaults}): a property without a
     * {@code default} stays unanswered.
     */
    static McpElicitation schemaDefaults() {
        return request -> {
            Map<String, Object> content = new LinkedHashMap<>();
            if (request.requestedSchema() != null && request.requestedSchema().get("properties") instanceof Map<?, ?> properties) {
                properties.forEach((name, definition) -> {
                    if (definition instanceof Map<?, ?> property && property.containsKey("default")) {
                        content.put(String.valueOf(name), property.get("default"));
                    }
                });
            }
            return McpSchema.ElicitResult.builder(McpSchema.ElicitResult.Action.ACCEPT).content(content).build();
        };
    }
}
