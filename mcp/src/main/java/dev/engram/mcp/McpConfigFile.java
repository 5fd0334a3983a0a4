package dev.engram.mcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the {@code mcpServers} JSON that desktop MCP clients use: each server by name, either a command
 * ({@code command}, {@code args}, {@code env}) or a URL ({@code url}, {@code headers}, and {@code type} {@code sse} for
 * the older SSE transport; any other type, or none, is Streamable HTTP).
 *
 * <pre>{@code
 * {"mcpServers": {
 *   "fs":   {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
 *   "docs": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ..."}}}}
 * }</pre>
 */
public final class McpConfigFile {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private McpConfigFile() {
    }

    /**
     * The servers the file names, in its order.
     *
     * @throws IllegalArgumentException if the file is not such JSON, naming the server and field at fault
     * @throws UncheckedIOException     if it cannot be read
     */
    public static List<McpServerSpec> read(Path file) {
        try {
            return parse(Files.readString(file), file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the MCP config file " + file + ": " + e.getMessage(), e);
        }
    }

    /** {@link #read} of JSON text; {@code origin} names it in errors. */
    public static List<McpServerSpec> parse(String json, String origin) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(origin + " is not JSON: " + e.getOriginalMessage());
        }
        JsonNode servers = root.path("mcpServers");
        if (!servers.isObject()) {
            throw new IllegalArgumentException(origin + " has no \"mcpServers\" object (the shape desktop MCP clients use: "
                    + "{\"mcpServers\": {\"name\": {\"command\": ..., \"args\": [...]}}})");
        }
        List<McpServerSpec> specs = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : servers.properties()) {
            String name = e.getKey();
            JsonNode s = e.getValue();
            String where = origin + ", server \"" + name + "\"";
            if (s.hasNonNull("command") == s.hasNonNull("url")) {
                throw new IllegalArgumentException(where + ": give either \"command\" (with \"args\") or \"url\"");
            }
            try {
                if (s.hasNonNull("command")) {
                    List<String> command = new ArrayList<>();
                    command.add(text(s.get("command"), where + ", \"command\""));
                    for (JsonNode a : s.path("args")) {
                        command.add(text(a, where + ", \"args\""));
                    }
                    specs.add(McpServerSpec.stdio(name, command, strings(s.path("env"), where + ", \"env\"")));
                } else {
                    String url = text(s.get("url"), where + ", \"url\"");
                    Map<String, String> headers = strings(s.path("headers"), where + ", \"headers\"");
                    specs.add("sse".equals(s.path("type").asString("")) ? McpServerSpec.sse(name, url, headers)
                            : McpServerSpec.streamableHttp(name, url, headers));
                }
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException(where + ": " + bad.getMessage(), bad);
            }
        }
        return specs;
    }

    private static String text(JsonNode n, String where) {
        if (!n.isString()) {
            throw new IllegalArgumentException(where + " must be a string");
        }
        return n.asString();
    }

    private static Map<String, String> strings(JsonNode n, String where) {
        Map<String, String> out = new LinkedHashMap<>();
        if (n.isMissingNode() || n.isNull()) {
            return out;
        }
        if (!n.isObject()) {
            throw new IllegalArgumentException(where + " must be an object of strings");
        }
        for (Map.Entry<String, JsonNode> e : n.properties()) {
            out.put(e.getKey(), text(e.getValue(), where + " \"" + e.getKey() + "\""));
        }
        return out;
    }
}
