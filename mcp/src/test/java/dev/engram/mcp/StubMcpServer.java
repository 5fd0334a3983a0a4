package dev.engram.mcp;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A small stdio MCP server the tests start as a process of its own ({@link #command}): it answers {@code initialize}
 * and {@code tools/list} (one tool, {@code echo}), and answers a {@code tools/call} according to its mode:
 * {@code ok} echoes the text, {@code stall} never answers, {@code crash} exits at once without answering.
 */
public final class StubMcpServer {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private StubMcpServer() {
    }

    /** The command that starts this server in {@code mode} ({@code ok}, {@code stall} or {@code crash}). */
    public static List<String> command(String mode) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // C1 only and the serial collector: a stub answers a few lines, and C2's compilations were CPU beside the tests.
        return new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), StubMcpServer.class.getName(), mode));
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length == 0 ? "ok" : args[0];
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode request = JSON.readTree(line);
            if (!request.has("id")) {
                continue; // a notification
            }
            ObjectNode response = JSON.createObjectNode().put("jsonrpc", "2.0");
            response.set("id", request.get("id"));
            switch (request.path("method").asString()) {
                case "initialize" -> {
                    ObjectNode r = response.putObject("result");
                    r.put("protocolVersion", request.path("params").path("protocolVersion").asString("2025-06-18"));
                    r.putObject("capabilities").putObject("tools");
                    r.putObject("serverInfo").put("name", "stub").put("version", "1");
                }
                case "tools/list" -> {
                    ObjectNode tool = response.putObject("result").putArray("tools").addObject();
                    tool.put("name", "echo").put("description", "Echoes its text.");
                    ObjectNode schema = tool.putObject("inputSchema").put("type", "object");
                    schema.putObject("properties").putObject("text").put("type", "string");
                    schema.putArray("required").add("text");
                }
                case "tools/call" -> {
                    if (mode.equals("stall")) {
                        Thread.sleep(Long.MAX_VALUE);
                    }
                    if (mode.equals("crash")) {
                        System.exit(3);
                    }
                    ObjectNode r = response.putObject("result");
                    r.putArray("content").addObject().put("type", "text")
                            .put("text", "echo: " + request.path("params").path("arguments").path("text").asString());
                }
                case "ping" -> response.putObject("result");
                default -> response.putObject("error").put("code", -32601).put("message", "no such method");
            }
            out.println(JSON.writeValueAsString(response));
        }
    }
}
