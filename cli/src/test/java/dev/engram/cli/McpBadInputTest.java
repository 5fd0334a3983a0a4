package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import tools.jackson.databind.JsonNode;

/**
 * {@code engram mcp} as a real process fed lines a careless or hostile client may send: each one is
 * answered with a JSON-RPC error, the session goes on, and the end of the input ends the process once
 * the calls read before it are answered.
 */
@Execution(ExecutionMode.CONCURRENT) // beside the in-process classes: it mostly waits for its child processes
class McpBadInputTest {
    private static final String INITIALIZE = """
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}
            {"jsonrpc":"2.0","method":"notifications/initialized"}
            """;

    @TempDir
    Path home;

    private Process server;
    private OutputStream toServer;
    private final BlockingQueue<String> fromServer = new LinkedBlockingQueue<>();
    /** Writes happen on their own thread: a wedged server stops reading, and a test must not block on a full pipe. */
    private final BlockingQueue<byte[]> toWrite = new LinkedBlockingQueue<>();

    private void start() throws Exception {
        List<String> cmd = EngramChild.command(List.of("-Xmx512m"), home, "mcp", "--user", "ana");
        server = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        toServer = server.getOutputStream();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    fromServer.add(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        });
        Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    byte[] next = toWrite.take();
                    if (next.length == 0) {
                        toServer.close();
                        return;
                    }
                    toServer.write(next);
                    toServer.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the process ended or the test is over
            }
        });
        send(INITIALIZE);
        // A new JVM opening the engine: slow on a busy machine, so its first answer gets longer than the others.
        String first = fromServer.poll(3, TimeUnit.MINUTES);
        assertThat(first).as("the answer to initialize").isNotNull();
        assertThat(Json.parse(first).path("id").asInt()).isEqualTo(1);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.destroyForcibly();
        }
    }

    private void send(String text) {
        toWrite.add(text.getBytes(StandardCharsets.UTF_8));
    }

    private void closeInput() {
        toWrite.add(new byte[0]);
    }

    /** The server's next line; a wedged session never sends it. */
    private JsonNode next() throws InterruptedException {
        String line = fromServer.poll(60, TimeUnit.SECONDS);
        assertThat(line).as("the server's next line (none within 60 s: the session is wedged)").isNotNull();
        return Json.parse(line);
    }

    private void assertError(JsonNode answer, int code, String id) {
        assertThat(answer.path("jsonrpc").asString()).isEqualTo("2.0");
        assertThat(answer.path("error").path("code").asInt()).as("code of " + answer).isEqualTo(code);
        assertThat(answer.path("error").path("message").asString()).isNotBlank();
        assertThat(answer.get("id")).as("id of " + answer).isNotNull();
        assertThat(answer.get("id").isNull() ? null : answer.get("id").asString()).isEqualTo(id);
    }

    private void assertAListCallIsAnswered(int id) throws InterruptedException {
        send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}\n");
        JsonNode answer = next();
        assertThat(answer.path("id").asInt()).isEqualTo(id);
        assertThat(answer.at("/result/tools").size()).isEqualTo(McpCommand.USER_TOOLS.size());
    }

    private static String nested(int depth) {
        return "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{\"x\":" + "[".repeat(depth)
                + "]".repeat(depth) + "}}\n";
    }

    /** A tools/list call with id 9 whose padding makes the line longer than the limit. */
    private void sendHugeLine() {
        send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":{\"pad\":\"");
        byte[] pad = new byte[1 << 20];
        Arrays.fill(pad, (byte) 'a');
        for (int i = 0; i <= (16 << 20) / pad.length; i++) {
            toWrite.add(pad);
        }
        send("\"}}\n");
    }

    @Test
    void garbageADeepLineAndAHugeLineAreEachAnsweredAndALaterCallStillIsAndTheEndEndsIt() throws Exception {
        start();
        send("this is not json\n");
        assertError(next(), -32700, null);
        send(nested(5_000));
        assertError(next(), -32600, "7");
        sendHugeLine();
        assertError(next(), -32600, "9");
        send("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"memory_save\","
                + "\"arguments\":{\"content\":\"saved after the bad lines\"}}}\n");
        closeInput(); // at once: the call read before the end is still answered
        JsonNode saved = next();
        assertThat(saved.path("id").asInt()).isEqualTo(10);
        assertThat(saved.at("/result/content/0/text").asString()).contains("note-");
        assertThat(server.waitFor(60, TimeUnit.SECONDS)).as("the process ends at the end of its input").isTrue();
        assertThat(server.exitValue()).isZero();
        assertThat(Cli.run(home, "notes", "list", "--user", "ana").out()).contains("saved after the bad lines");
    }

    @Test
    void eachBadLineIsAnsweredWithItsCodeAndItsIdWhenItCanBeRead() throws Exception {
        start();
        send("{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/list\",\"params\":{\n"); // cut short after its id
        assertError(next(), -32700, "41");
        send("\n   \n"); // blank lines are skipped, not answered
        send("{\"jsonrpc\":\"2.0\",\"id\":\"five\"}\n"); // JSON, but neither request, notification nor response
        assertError(next(), -32600, "five");
        send("[1,2,3]\n");
        assertError(next(), -32600, null);
        send("{\"jsonrpc\":\"1.0\",\"id\":6,\"method\":\"tools/list\"}\n");
        assertError(next(), -32600, "6");
        send("{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\",\"params\":" + "[".repeat(5_000) + "\n"); // deep, no id
        assertError(next(), -32600, null);
        assertAListCallIsAnswered(12);
        closeInput();
        assertThat(server.waitFor(60, TimeUnit.SECONDS)).as("the process ends at the end of its input").isTrue();
        assertThat(fromServer).as("nothing more was said").isEmpty();
    }
}
