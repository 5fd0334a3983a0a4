package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.MemoryStore;
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

/** {@code engram serve} as a real process: it says where it listens and what it uses, answers, and stops on SIGTERM. */
class ServeCommandTest {
    @TempDir
    Path home;

    private List<String> engram(String... args) {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-Dai.djl.offline=true",
                "-cp", System.getProperty("java.class.path"), EngramCli.class.getName(), "--home", home.toString()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    void theServerStartsAnswersWithAKeyAndStopsCleanlyOnSigterm() throws Exception {
        String key = Cli.ok(home, "keys", "create", "--user", "ana").out().strip();
        // Standard error goes to a file: what the shutdown hook writes arrives after the JVM began to exit, which a
        // Process pipe may not deliver.
        Path errFile = home.resolve("serve.err");
        // --code needs bubblewrap and python3 or node: without them the server refuses to start, saying what to install.
        boolean code = Files.isExecutable(Path.of("/usr/bin/bwrap")) && Files.isExecutable(Path.of("/usr/bin/python3"));
        List<String> args = new ArrayList<>(List.of("serve", "--port", "0", "--web", "--allow-model", "http://127.0.0.1:9/*"));
        if (code) {
            args.add("--code");
        }
        ProcessBuilder serve = new ProcessBuilder(engram(args.toArray(String[]::new)))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(errFile.toFile());
        List.of("BRAVE_API_KEY", "TAVILY_API_KEY", "SEARXNG_URL").forEach(serve.environment()::remove); // no search provider
        Process server = serve.start();
        try {
            Pattern listening = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
            int p = -1;
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); p < 0 && System.nanoTime() < deadline; ) {
                Matcher m = listening.matcher(Files.readString(errFile));
                if (m.find()) {
                    p = Integer.parseInt(m.group(1));
                } else {
                    assertThat(server.isAlive()).as("the server exited: %s", Files.readString(errFile)).isTrue();
                    Thread.sleep(50);
                }
            }
            assertThat(p).as("listening within a minute").isPositive();
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + "/v1/health/")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.body()).contains("\"status\":\"ok\"");
            HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + "/v1/agents/"))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"helper\"}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            // Only the operator chooses where model requests go: a provider model or one --allow-model allows.
            for (String model : List.of("script:/etc/passwd", "http://169.254.169.254/latest#x")) {
                HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + "/v1/agents/"))
                        .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"evil\", \"model\": \"" + model + "\"}")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(422);
            }
            HttpResponse<String> allowed = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + "/v1/agents/"))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"local\", \"model\": \"http://127.0.0.1:9/v1#m\"}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(allowed.statusCode()).as(allowed.body()).isEqualTo(200);
            // --web: Letta's fetch_webpage is Engram's web_fetch; web_search needs a search provider, not set here.
            HttpResponse<String> web = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + "/v1/agents/"))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"web\", \"tools\": [\"fetch_webpage\"]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(web.statusCode()).as(web.body()).isEqualTo(200);
            assertThat(web.body()).contains("\"name\":\"web_fetch\"");
            HttpResponse<String> search = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + "/v1/agents/"))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"search\", \"tools\": [\"web_search\"]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(search.statusCode()).as(search.body()).isEqualTo(400);
            assertThat(search.body()).contains("Tools not found by name: {'web_search'}");
            // --code: Letta's run_code.
            HttpResponse<String> runCode = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + "/v1/agents/"))
                    .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"coder\", \"tools\": [\"run_code\"]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(runCode.statusCode()).as(runCode.body()).isEqualTo(code ? 200 : 400);
            assertThat(runCode.body()).contains(code ? "\"name\":\"run_code\"" : "engram serve with --code");
            HttpResponse<String> unauthorized = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p + "/v1/agents/"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(unauthorized.statusCode()).isEqualTo(401);

            server.destroy(); // SIGTERM
            assertThat(server.waitFor(30, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
            assertThat(Files.readString(errFile)).contains("started in", "store:   SQLite " + home.resolve("memory.db"),
                    "sandbox: ", "models:  provider models, http://127.0.0.1:9/*", "Stopping: turns in progress are cancelled.");
            if (Files.isExecutable(Path.of("/usr/bin/bwrap"))) {
                assertThat(Files.readString(errFile)).contains("sandbox: bubblewrap (/usr/bin/bwrap; capabilities dropped");
            }
        } finally {
            server.destroyForcibly();
        }
        try (MemoryStore store = MemoryStore.sqlite(home.resolve("memory.db"))) {
            assertThat(store.agents().findByName("ana", "helper")).hasSize(1);
        }
    }
}
