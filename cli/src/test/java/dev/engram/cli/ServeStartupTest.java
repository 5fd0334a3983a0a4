package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.memory.Scope;
import dev.engram.memory.SearchRequest;
import java.io.IOException;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code engram serve}'s start as a real process: it is ready (as {@code /readyz} says) once it listens and warms the
 * search up in the background ({@code "warm"} in {@code /readyz}, and a log line when done); stopped while it warms up,
 * it stops quietly and cleanly.
 */
class ServeStartupTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path home;

    /** A server process, and the port it said it listens on. */
    private record Served(Process process, int port, Path errFile) {
        String err() throws IOException {
            return Files.readString(errFile);
        }

        /** Standard error without the JVM's notice about the incubator module, which the launcher drops. */
        String log() throws IOException {
            return err().replace("WARNING: Using incubator modules: jdk.incubator.vector\n", "");
        }
    }

    private Served serve() throws Exception {
        Cli.ok(home, "keys", "create", "--user", "ana");
        Path errFile = home.resolve("serve.err");
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--add-modules", "jdk.incubator.vector", "-Dai.djl.offline=true",
                "-cp", System.getProperty("java.class.path"), EngramCli.class.getName(), "--home", home.toString(),
                "serve", "--port", "0"));
        // The working directory is the home, where a JVM that crashed would leave its hs_err file.
        Process server = new ProcessBuilder(cmd).directory(home.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(errFile.toFile()).start();
        Pattern listening = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); System.nanoTime() < deadline; ) {
            Matcher m = listening.matcher(Files.readString(errFile));
            if (m.find()) {
                return new Served(server, Integer.parseInt(m.group(1)), errFile);
            }
            assertThat(server.isAlive()).as("the server exited: %s", Files.readString(errFile)).isTrue();
            Thread.sleep(20);
        }
        server.destroyForcibly();
        throw new AssertionError("not listening within a minute: " + Files.readString(errFile));
    }

    private HttpResponse<String> get(Served s, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private List<Path> crashReports() throws IOException {
        try (Stream<Path> files = Files.list(home)) {
            return files.filter(f -> f.getFileName().toString().startsWith("hs_err")).toList();
        }
    }

    @Test
    void stoppedWhileItWarmsUpTheServerExitsQuietlyAndReleasesTheIndex() throws Exception {
        Served s = serve();
        try {
            // at once: the embedding model takes seconds to load, so the warm-up is still running
            s.process().destroy(); // SIGTERM
            assertThat(s.process().waitFor(60, TimeUnit.SECONDS)).as("stopped on SIGTERM").isTrue();
            assertThat(s.process().exitValue()).as(s.err()).isEqualTo(128 + 15);
            String err = s.log();
            assertThat(err).contains("Stopping: turns in progress are cancelled.");
            assertThat(err).as("no warning, no crash").doesNotContain("WARN").doesNotContain("Shutdown in progress")
                    .doesNotContain("fatal error");
            assertThat(crashReports()).isEmpty();
        } finally {
            s.process().destroyForcibly();
        }
        // what the warm-up opened was closed: the next process opens the index
        try (Engine next = new Engine(home)) {
            assertThat(next.search().search(SearchRequest.builder(Scope.of("ana", "helper"), "octopus").build())).isEmpty();
        }
    }

    @Test
    void theServerIsReadyAsSoonAsItListensAndWarmsUpAfterSayingWhenDone() throws Exception {
        Served s = serve();
        try {
            assertThat(get(s, "/v1/health/").statusCode()).isEqualTo(200);
            // ready at once: a turn and a search are answered (a search waits for the model while it loads)
            HttpResponse<String> ready = get(s, "/readyz");
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
            assertThat(ready.body()).contains("\"status\":\"ready\"");
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                    !ready.body().contains("\"warm\":true") && System.nanoTime() < deadline; ready = get(s, "/readyz")) {
                assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
                assertThat(ready.body()).contains("\"warm\":false");
                Thread.sleep(50);
            }
            assertThat(ready.body()).contains("\"warm\":true");
            // warm means the index is open and the model answered (the health says so, not degraded); the log says when
            assertThat(home.resolve("index")).isDirectory();
            assertThat(get(s, "/v1/health/").body()).contains("\"status\":\"ok\"");
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    !s.log().contains("Warm-up done in") && System.nanoTime() < deadline; ) {
                Thread.sleep(20);
            }
            assertThat(s.log()).containsPattern("Warm-up done in \\d+ ms");
            s.process().destroy();
            assertThat(s.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(s.log()).doesNotContain("WARN");
        } finally {
            s.process().destroyForcibly();
        }
    }
}
