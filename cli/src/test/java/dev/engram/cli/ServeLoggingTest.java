package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code engram serve}'s log as a real process writes it: one route (Helidon's java.util.logging lines go through the
 * same binding, WARNING and above, so only Engram's start lines appear), the request id of the request that wrote a
 * line in it, text or JSON ({@code --log-format json}), and {@code /metrics} on {@code --management-port}.
 */
class ServeLoggingTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path home;

    private List<String> engram(String... args) {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-Dai.djl.offline=true",
                "-cp", System.getProperty("java.class.path"), EngramCli.class.getName(), "--home", home.toString()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** What a served process wrote to standard error, after one failing turn with a request id and a scrape. */
    private record Served(String err, HttpResponse<String> failed, HttpResponse<String> metrics) {
    }

    private Served serve(String requestId, String... flags) throws Exception {
        String key = Cli.ok(home, "keys", "create", "--user", "ana").out().strip();
        String admin = Cli.ok(home, "keys", "create", "--admin").out().strip();
        Path errFile = home.resolve("serve.err");
        List<String> cmd = new ArrayList<>(List.of("serve", "--port", "0", "--allow-model", "http://127.0.0.1:9/*"));
        cmd.addAll(List.of(flags));
        Process server = new ProcessBuilder(engram(cmd.toArray(String[]::new)))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(errFile.toFile()).start();
        try {
            Pattern listening = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
            Pattern metricsAt = Pattern.compile("metrics: http://127\\.0\\.0\\.1:(\\d+)/metrics");
            int port = -1;
            int metricsPort = -1;
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); metricsPort < 0 && System.nanoTime() < deadline; ) {
                String err = Files.readString(errFile);
                Matcher m = listening.matcher(err);
                Matcher mp = metricsAt.matcher(err);
                if (m.find() && mp.find()) {
                    port = Integer.parseInt(m.group(1));
                    metricsPort = Integer.parseInt(mp.group(1));
                } else {
                    assertThat(server.isAlive()).as("the server exited: %s", err).isTrue();
                    Thread.sleep(50);
                }
            }
            assertThat(metricsPort).as("listening within a minute").isPositive();
            String base = "http://127.0.0.1:" + port;
            HttpResponse<String> created = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/v1/agents/"))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"unreachable\", \"model\": \"http://127.0.0.1:9/v1#m\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            String agent = JSON.readTree(created.body()).path("id").asString();
            // the agent's model cannot be reached: the server logs the failure while it handles this request
            HttpResponse<String> failed = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/v1/agents/" + agent + "/messages"))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                    .header("X-Request-Id", requestId)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> metrics = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                    .header("Authorization", "Bearer " + admin).build(), HttpResponse.BodyHandlers.ofString());
            server.destroy(); // SIGTERM
            assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
            return new Served(Files.readString(errFile), failed, metrics);
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void jsonLogsAreOneObjectPerLineWithTheRequestIdAndNoLibraryChatter() throws Exception {
        Served s = serve("trace-json-1", "--log-format", "json", "--management-port", "0");
        assertThat(s.failed().statusCode()).as(s.failed().body()).isEqualTo(502);
        assertThat(JSON.readTree(s.failed().body()).path("request_id").asString()).isEqualTo("trace-json-1");
        assertThat(s.metrics().statusCode()).isEqualTo(200);
        assertThat(s.metrics().body()).contains("engram_model_calls_seconds_count{model=\"http://127.0.0.1:9/v1#m\",outcome=\"failed\"}");

        List<JsonNode> lines = new ArrayList<>();
        for (String line : s.err().split("\n")) {
            // the JVM's own warning about --add-modules jdk.incubator.vector, which the launcher filters out
            if (!line.isBlank() && !line.startsWith("WARNING: Using incubator modules")) {
                lines.add(JSON.readTree(line)); // throws on any line that is not JSON
            }
        }
        assertThat(lines).anySatisfy(l -> assertThat(l.path("message").asString()).startsWith("Engram server listening on"));
        assertThat(lines).anySatisfy(l -> assertThat(l.path("message").asString()).startsWith("Stopping"));
        assertThat(lines).anySatisfy(l -> {
            assertThat(l.path("level").asString()).isEqualTo("ERROR");
            assertThat(l.path("request_id").asString()).isEqualTo("trace-json-1");
            assertThat(l.path("logger").asString()).isEqualTo("dev.engram.server.Incidents");
            assertThat(l.path("error").asString()).contains("ConnectException");
        });
        assertThat(lines).allSatisfy(l -> {
            assertThat(l.path("logger").asString()).doesNotStartWith("io.helidon");
            assertThat(l.path("level").asString()).isIn("INFO", "WARN", "ERROR");
            if (l.path("level").asString().equals("INFO")) {
                assertThat(l.path("logger").asString()).isEqualTo("dev.engram.serve");
            }
        });
    }

    @Test
    void textLogsCarryTheRequestIdAndOnlyEngramsStartLinesAppear() throws Exception {
        Served s = serve("trace-text-2");
        assertThat(s.failed().statusCode()).isEqualTo(502);
        assertThat(s.metrics().statusCode()).isEqualTo(200); // on the server's own port by default
        assertThat(s.err()).contains("ERROR dev.engram.server.Incidents [request_id=trace-text-2] - A turn's model failed")
                .doesNotContain("Helidon SE", "INFO");
        List<String> unexpected = s.err().lines().filter(l -> !l.isBlank())
                .filter(l -> !l.startsWith("WARNING: Using incubator modules")).filter(l -> !l.startsWith("  ")
                && !l.startsWith("Engram server listening") && !l.startsWith("Stopping:") && !l.startsWith("ERROR dev.engram.")
                // the start's last line, once the warm-up ended (when the test stops the server first, it never comes)
                && !l.matches("Warm-up done in \\d+ ms \\(search index, embedding model, first requests\\)")
                && !l.startsWith("WARN dev.engram.") && !l.startsWith("\t") && !l.startsWith("Caused by:")
                && !l.matches("^[\\w.$]+(Exception|Error).*")).toList();
        assertThat(unexpected).as("lines other than Engram's start lines and its own log lines").isEmpty();
    }

    @Test
    void aLogFormatOtherThanTextOrJsonIsRefusedBeforeAnythingStarts() {
        Cli.Run r = Cli.run(home, "serve", "--port", "0", "--log-format", "xml");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--log-format is text or json, not 'xml'");
        assertThat(r.err()).doesNotContain("listening");
    }
}
