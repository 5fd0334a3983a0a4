package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Letta's official TypeScript client, {@code @letta-ai/letta-client} 1.12.1 from npm, against a live server: the
 * script {@code letta-client/check.mjs} creates an agent with blocks, sends and streams messages, reads and modifies
 * a block, inserts and searches passages, exports and imports agent files, and checks that a second user's key
 * sees none of it; {@code letta-client/agents.mjs} checks issue #28's agent behaviours (create and modify fields,
 * agent types, shared names, imports with {@code override_name}, schedules, the v1 loop); {@code letta-client/archives.mjs}
 * checks issue #31's archives (two agents sharing one, a detach, another user who sees nothing). The client is installed with npm into {@code target/letta-client} once. Skipped, with a message,
 * when node or npm is missing; a failed install (the npm registry unreachable) fails the test.
 */
@Execution(ExecutionMode.CONCURRENT) // beside the in-process classes: it mostly waits for the node client
@ResourceLock("server/target/letta-client") // one npm install into it, and the methods one after another
class LettaClientTest {
    /** The input of the tool whose output a stream may carry ({@code include_tool_progress}). */
    record Target(String target) {
    }

    static final String CLIENT = "@letta-ai/letta-client@1.12.1";

    @TempDir
    Path dir;

    static boolean runs(String... command) {
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

    static String run(Path cwd, Map<String, String> env, long minutes, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(minutes, TimeUnit.MINUTES)).as("%s finished", String.join(" ", command)).isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("%s exited with %d:%n%s", String.join(" ", command), p.exitValue(), text).isZero();
        return text;
    }

    /** The client installed under target/letta-client (by npm, on first use). */
    static Path installedClient() throws Exception {
        Path home = Path.of("target", "letta-client").toAbsolutePath();
        Files.createDirectories(home);
        if (!Files.exists(home.resolve("node_modules/@letta-ai/letta-client/package.json"))) {
            run(home, Map.of(), 5, "npm", "install", "--no-audit", "--no-fund", "--no-save", "--prefix", home.toString(), CLIENT);
        }
        for (String name : List.of("check.mjs", "agents.mjs", "archives.mjs", "methods.mjs", "quickstart.mjs")) {
            try (InputStream script = LettaClientTest.class.getResourceAsStream("/letta-client/" + name)) {
                Files.copy(script, home.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return home;
    }

    /**
     * Runs one script of the client against a live server; asserts ALL OK and at least {@code minChecks} ok lines,
     * {@code fileChecks} fewer when the Letta agent file is absent (its import checks are then skipped).
     */
    private void runScript(String script, int minChecks, int fileChecks) throws Exception {
        assumeTrue(runs("node", "--version") && runs("npm", "--version"),
                "skipped: node and npm are needed to run Letta's TypeScript client (apt-get install nodejs npm)");
        Path client = installedClient();
        try (ServerFixture fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", new EchoModel())
                .tool(AiTool.of("build", "Builds a target, printing as it goes.", Target.class, SafetyTier.READ_ONLY, (in, ctx) -> {
                    ctx.progress().report("compiling " + in.target() + "\n");
                    return "built " + in.target();
                }))))) {
            Map<String, String> env = new HashMap<>(Map.of("ENGRAM_URL", fx.url(""),
                    "KEY_A", fx.ana, "KEY_B", fx.ben));
            Path af = Path.of("").toAbsolutePath().getParent().getParent().resolve("shared/data/agent-files/customer_service.af");
            boolean withFile = Files.exists(af);
            if (withFile) {
                env.put("AF_FILE", af.toString());
            }
            String out = run(client, env, 3, "node", script);
            assertThat(out).contains("ALL OK").doesNotContain("FAIL");
            List<String> checks = out.lines().filter(l -> l.startsWith("ok ")).toList();
            assertThat(checks).as(out).hasSizeGreaterThanOrEqualTo(minChecks - (withFile ? 0 : fileChecks));
        }
    }

    @Test
    void lettasOwnClientWorksAgainstTheServerAndASecondUsersKeySeesNothing() throws Exception {
        runScript("check.mjs", 25, 0);
    }

    @Test
    void lettasOwnClientCreatesImportsSchedulesAndRunsAgentsAsInLetta() throws Exception {
        runScript("agents.mjs", 25, 3);
    }

    @Test
    void lettasOwnClientSharesAnArchiveBetweenTwoAgentsAndAnotherUserSeesNothing() throws Exception {
        runScript("archives.mjs", 20, 0);
    }
}
