package dev.engram.server;

import dev.engram.mcp.McpServerSpec;
import dev.engram.mcp.McpTransport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An MCP server's settings as Letta's API sends them (a command, its arguments and environment; or a URL, an auth header
 * and token, custom headers), split into what the store keeps in the clear ({@link #publicJson}) and the secrets it keeps
 * sealed ({@link #secretJson}): environment values, header values and the token. Responses never show a secret: its
 * value reads {@value #HIDDEN}.
 *
 * @param operator whether an admin key registered it (then it is not held to the egress rule of user keys)
 */
record McpConfig(McpTransport type, String command, List<String> args, Map<String, String> env, String url,
        String authHeader, String authToken, Map<String, String> headers, boolean operator) {
    /** What a secret value reads as in a response. */
    static final String HIDDEN = "********";

    /**
     * The config of a create request: Letta's {@code Create*MCPServer} (type in {@code typeField}) or its older
     * {@code *ServerConfig} (type in {@code type}). Without a type, a command is stdio and a URL {@code defaultHttp}.
     */
    static McpConfig parse(Body body, String typeField, McpTransport defaultHttp, boolean operator) {
        McpTransport type = type(body, typeField).orElse(body.has("command") ? McpTransport.STDIO : defaultHttp);
        return new McpConfig(type, "", List.of(), Map.of(), "", "", "", Map.of(), operator).merge(body, typeField);
    }

    /** This config with the fields {@code body} gives (Letta's {@code Update*MCPServer}: absent fields stay). */
    McpConfig merge(Body body, String typeField) {
        McpTransport t = type(body, typeField).orElse(type);
        String c = body.string("command").orElse(command).strip();
        List<String> a = body.strings("args").orElse(args);
        Map<String, String> e = body.has("env") ? strings(body, "env") : env;
        String u = body.string("server_url").orElse(url).strip();
        String h = body.string("auth_header").orElse(authHeader).strip();
        String token = body.string("auth_token").orElse(authToken).strip();
        Map<String, String> custom = body.has("custom_headers") ? strings(body, "custom_headers") : headers;
        if (t == McpTransport.STDIO) {
            if (c.isEmpty()) {
                throw body.problem("missing", "A stdio MCP server needs its command", "command");
            }
            return new McpConfig(t, c, List.copyOf(a), e, "", "", "", Map.of(), operator);
        }
        if (u.isEmpty()) {
            throw body.problem("missing", "An " + t.label() + " MCP server needs its server_url", "server_url");
        }
        return new McpConfig(t, "", List.of(), Map.of(), u, h, token, custom, operator);
    }

    private static Optional<McpTransport> type(Body body, String field) {
        Optional<String> label = body.string(field);
        try {
            return label.map(McpTransport::of);
        } catch (IllegalArgumentException e) {
            throw body.problem("literal_error", e.getMessage(), field);
        }
    }

    private static Map<String, String> strings(Body body, String field) {
        ObjectNode o = body.object(field).orElseThrow();
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, JsonNode> entry : o.properties()) {
            if (!entry.getValue().isString()) {
                throw body.problem("string_type", "Input should be a valid string", field, entry.getKey());
            }
            out.put(entry.getKey(), entry.getValue().asString());
        }
        return out;
    }

    /**
     * How Engram reaches it. The token goes in {@code auth_header} ({@code Authorization} when none is named), with
     * {@code Bearer } before it when it is the Authorization header and carries no scheme of its own.
     *
     * @throws IllegalArgumentException if the name, URL or a header is not one the MCP client can use
     */
    McpServerSpec spec(String name) {
        if (type == McpTransport.STDIO) {
            List<String> all = new ArrayList<>();
            all.add(command);
            all.addAll(args);
            return McpServerSpec.stdio(name, all, env);
        }
        Map<String, String> h = new TreeMap<>(headers);
        if (!authToken.isEmpty()) {
            String header = authHeader.isEmpty() ? "Authorization" : authHeader;
            h.put(header, header.equalsIgnoreCase("Authorization") && !authToken.contains(" ") ? "Bearer " + authToken
                    : authToken);
        }
        return type == McpTransport.SSE ? McpServerSpec.sse(name, url, h) : McpServerSpec.streamableHttp(name, url, h);
    }

    /** What the store keeps in the clear: the command and arguments, or the URL and the names of headers. */
    String publicJson() {
        ObjectNode o = Body.JSON.createObjectNode();
        o.put("operator", operator);
        if (type == McpTransport.STDIO) {
            o.put("command", command);
            args.forEach(o.putArray("args")::add);
            env.keySet().forEach(o.putArray("env_names")::add);
        } else {
            o.put("server_url", url);
            o.put("auth_header", authHeader);
        }
        return o.toString();
    }

    /** The secrets, as JSON to seal; empty when there are none. */
    Optional<String> secretJson() {
        if (env.isEmpty() && headers.isEmpty() && authToken.isEmpty()) {
            return Optional.empty();
        }
        ObjectNode o = Body.JSON.createObjectNode();
        env.forEach(o.putObject("env")::put);
        headers.forEach(o.putObject("custom_headers")::put);
        o.put("auth_token", authToken);
        return Optional.of(o.toString());
    }

    /** The config the store kept: its public JSON and its opened secrets ({@code {}} when none). */
    static McpConfig stored(String type, String publicJson, String secretJson) {
        JsonNode p = Body.JSON.readTree(publicJson);
        JsonNode s = Body.JSON.readTree(secretJson);
        List<String> args = new ArrayList<>();
        p.path("args").forEach(a -> args.add(a.asString()));
        return new McpConfig(McpTransport.of(type), p.path("command").asString(""), args, map(s.path("env")),
                p.path("server_url").asString(""), p.path("auth_header").asString(""), s.path("auth_token").asString(""),
                map(s.path("custom_headers")), p.path("operator").asBoolean(false));
    }

    private static Map<String, String> map(JsonNode o) {
        Map<String, String> out = new LinkedHashMap<>();
        o.properties().forEach(e -> out.put(e.getKey(), e.getValue().asString()));
        return out;
    }

    /** Letta's fields of this config on {@code o}, each secret value hidden. */
    ObjectNode fields(ObjectNode o, String typeField) {
        o.put(typeField, type.label());
        if (type == McpTransport.STDIO) {
            o.put("command", command);
            args.forEach(o.putArray("args")::add);
            ObjectNode e = o.putObject("env");
            env.keySet().forEach(k -> e.put(k, HIDDEN));
        } else {
            o.put("server_url", url);
            o.put("auth_header", authHeader.isEmpty() ? null : authHeader);
            o.put("auth_token", authToken.isEmpty() ? null : HIDDEN);
            ObjectNode h = o.putObject("custom_headers");
            headers.keySet().forEach(k -> h.put(k, HIDDEN));
        }
        return o;
    }
}
