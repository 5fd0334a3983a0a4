package dev.engram.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code engram mcp --http --port 0} in its own JVM with the tests' classpath, for the tests of MCP over HTTP: started,
 * its URL read from the line it prints, stopped with SIGTERM. {@link #raw} speaks HTTP/1.1 on a socket, so that a test
 * can send any {@code Host} header (the JDK's HTTP client refuses to).
 */
final class McpHttpProcess implements AutoCloseable {
    private static final Pattern SERVING = Pattern.compile("at (http://\\S+/mcp)");

    /** An HTTP answer: status, headers (names lower-cased) and body. */
    record Answer(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.getOrDefault(name.toLowerCase(Locale.ROOT), "");
        }
    }

    private final Process process;
    private final String url;
    private final StringBuilder log = new StringBuilder();

    private McpHttpProcess(Process process, String url) {
        this.process = process;
        this.url = url;
    }

    /** Starts {@code engram --home HOME mcp --http --port 0 ARGS…} and waits until it listens. */
    static McpHttpProcess start(Path home, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("mcp", "--http", "--port", "0"));
        cmd.addAll(List.of(args));
        cmd = EngramChild.command(home, cmd.toArray(String[]::new));
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        CompletableFuture<String> url = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line; (line = err.readLine()) != null; ) {
                    seen.append(line).append('\n');
                    Matcher m = SERVING.matcher(line);
                    if (m.find()) {
                        return m.group(1);
                    }
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        });
        String found;
        try {
            found = url.get(2, TimeUnit.MINUTES);
        } catch (Exception e) {
            found = null;
        }
        if (found == null) {
            p.destroyForcibly();
            throw new IllegalStateException("engram mcp --http did not start:\n" + seen);
        }
        McpHttpProcess started = new McpHttpProcess(p, found);
        Thread.ofVirtual().start(() -> {
            try {
                for (String line; (line = err.readLine()) != null; ) {
                    synchronized (started.log) {
                        started.log.append(line).append('\n');
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
        });
        return started;
    }

    /** The endpoint, {@code http://127.0.0.1:PORT/mcp}. */
    String url() {
        return url;
    }

    int port() {
        return Integer.parseInt(url.replaceAll(".*:(\\d+)/mcp$", "$1"));
    }

    /** What the server wrote to standard error after it started. */
    String log() {
        synchronized (log) {
            return log.toString();
        }
    }

    /** A JSON-RPC initialize request's body. */
    static String initialize() {
        return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}";
    }

    /**
     * Sends one request ({@code Connection: close}) with exactly these headers besides {@code Host} (unless given),
     * {@code Content-Length} and {@code Connection}, and reads the whole answer.
     */
    Answer raw(String method, Map<String, String> headers, String body) throws IOException {
        Map<String, String> all = new LinkedHashMap<>();
        if (headers.keySet().stream().noneMatch(h -> h.equalsIgnoreCase("Host"))) {
            all.put("Host", "127.0.0.1:" + port());
        }
        all.putAll(headers);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder(method + " /mcp HTTP/1.1\r\n");
        all.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        head.append("Content-Length: ").append(bytes.length).append("\r\nConnection: close\r\n\r\n");
        try (Socket socket = new Socket("127.0.0.1", port())) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.flush();
            InputStream in = socket.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            String[] lines = text.substring(0, end).split("\r\n");
            Map<String, String> answerHeaders = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                answerHeaders.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
            }
            return new Answer(Integer.parseInt(lines[0].split(" ")[1]), answerHeaders, text.substring(end + 4));
        }
    }

    /** Headers of an MCP POST with the key (none when {@code null}) and the session (none when {@code null}). */
    static Map<String, String> post(String key, String session) {
        Map<String, String> h = new LinkedHashMap<>(Map.of("Content-Type", "application/json",
                "Accept", "application/json, text/event-stream"));
        if (key != null) {
            h.put("Authorization", "Bearer " + key);
        }
        if (session != null) {
            h.put("Mcp-Session-Id", session);
        }
        return h;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
