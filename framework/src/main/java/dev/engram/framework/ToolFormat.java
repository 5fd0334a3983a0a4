package dev.engram.framework;

/** The tool-definition formats the registry can render. See {@link ToolDefinition#toJson(ToolFormat)}. */
public enum ToolFormat {
    /** OpenAI Chat Completions (and compatible servers): {@code {"type":"function","function":{name, description, parameters}}}. */
    OPENAI,
    /** Anthropic Messages: {@code {name, description, input_schema}}. */
    ANTHROPIC,
    /**
     * Gemini: a {@code FunctionDeclaration} {@code {name, description, parameters}} whose schema is
     * reduced to the OpenAPI subset Gemini accepts. {@link ToolRegistry#toolsJson} wraps the
     * declarations in one {@code {"functionDeclarations": [...]}} tool.
     */
    GEMINI,
    /** MCP {@code tools/list}: {@code {name, description, inputSchema, annotations}} with hints from the safety tier. */
    MCP
}
