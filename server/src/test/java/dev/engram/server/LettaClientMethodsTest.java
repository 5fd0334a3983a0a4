package dev.engram.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.mcp.StubHttpMcpServer;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.SearchProviders;
import dev.engram.tools.WebFetcher;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Letta's official TypeScript client, {@code @letta-ai/letta-client} 1.12.1, method by method: the script
 * {@code letta-client/methods.mjs} walks the client's resource classes, learns the HTTP path each method calls, keeps
 * the self-hosted ones (by the contract's tags), calls each against this live server (on the scripted {@link EchoModel})
 * with valid arguments, and checks each answer against the contract's response schema; it prints
 * {@code client methods passing X of M self-hosted} and the failures. Every method it calls must pass, and they are
 * exactly those of {@link #EXPECTED_PASS}: a new client method is named there once it passes. The MCP server methods
 * reach a live MCP server on 127.0.0.1 ({@link StubHttpMcpServer}, a tool {@code add}), and the script checks what the
 * tool answers, not only the answer's shape. Also Letta's quickstart, as Letta's
 * README wrote it ({@code letta-client/quickstart.mjs}). One server for both; the client is installed once under
 * {@code target/letta-client}. Skipped without node and npm, or without the contract.
 */
@Execution(ExecutionMode.CONCURRENT) // beside the in-process classes: it mostly waits for the node client
@ResourceLock("server/target/letta-client") // one npm install into it, and the methods one after another
class LettaClientMethodsTest {
    /** Every self-hosted method of the client, each of which passes. */
    static final Set<String> EXPECTED_PASS = Set.of(
            "agents.archives.attach", "agents.archives.detach", "agents.blocks.attach", "agents.blocks.detach",
            "agents.blocks.list", "agents.blocks.retrieve", "agents.blocks.update", "agents.create", "agents.delete",
            "agents.exportFile", "agents.files.close", "agents.files.closeAll", "agents.files.list",
            "agents.files.open", "agents.folders.attach", "agents.folders.detach", "agents.folders.list",
            "agents.identities.attach", "agents.identities.detach", "agents.importFile", "agents.list",
            "agents.messages.cancel", "agents.messages.compact", "agents.messages.create",
            "agents.messages.createAsync", "agents.messages.list", "agents.messages.reset", "agents.messages.stream",
            "agents.passages.create", "agents.passages.delete", "agents.passages.list", "agents.passages.search",
            "agents.recompile", "agents.retrieve", "agents.schedule.create", "agents.schedule.delete",
            "agents.schedule.list", "agents.schedule.retrieve", "agents.tools.attach", "agents.tools.detach",
            "agents.tools.list", "agents.tools.run", "agents.tools.updateApproval", "agents.update", "archives.create",
            "archives.delete", "archives.list", "archives.passages.create", "archives.passages.createMany",
            "archives.passages.delete", "archives.retrieve", "archives.update", "blocks.agents.list", "blocks.create",
            "blocks.delete", "blocks.list", "blocks.retrieve", "blocks.update", "conversations.cancel",
            "conversations.create", "conversations.delete", "conversations.fork", "conversations.list",
            "conversations.messages.compact", "conversations.messages.create", "conversations.messages.list",
            "conversations.messages.stream", "conversations.recompile", "conversations.retrieve",
            "conversations.update", "folders.agents.list", "folders.create", "folders.delete", "folders.files.delete",
            "folders.files.list", "folders.files.retrieve", "folders.files.upload", "folders.list", "folders.retrieve",
            "folders.update", "health", "mcpServers.create", "mcpServers.delete", "mcpServers.list",
            "mcpServers.refresh", "mcpServers.retrieve", "mcpServers.tools.list", "mcpServers.tools.retrieve",
            "mcpServers.tools.run", "mcpServers.update", "messages.list", "messages.retrieve", "messages.search",
            "models.embeddings.list", "models.list", "passages.search", "runs.list", "runs.messages.list",
            "runs.messages.stream", "runs.retrieve", "runs.steps.list", "runs.trace.retrieve", "runs.usage.retrieve",
            "steps.feedback.create", "steps.list", "steps.messages.list", "steps.metrics.retrieve", "steps.retrieve",
            "steps.trace.retrieve", "tags.list", "tools.create", "tools.delete", "tools.list", "tools.retrieve",
            "tools.search", "tools.update", "tools.upsert");
    private static final String MCP_TOKEN = "methods-token";
    /** The key MCP servers' tokens are sealed with (32 bytes, base64): the MCP server's token is a secret. */
    private static final String SECRETS_KEY = Base64.getEncoder().encodeToString("engram-letta-client-methods-key!".getBytes(StandardCharsets.US_ASCII));
    private static final Pattern PASS = Pattern.compile("^pass (\\S+) ", Pattern.MULTILINE);
    private static final Pattern COUNT = Pattern.compile("client methods passing (\\d+) of (\\d+) self-hosted");

    @TempDir
    static Path dir;
    static ServerFixture fx;
    static StubHttpMcpServer mcp;
    static Path client;
    static Path contract;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(LettaClientTest.runs("node", "--version") && LettaClientTest.runs("npm", "--version"),
                "skipped: node and npm are needed to run Letta's TypeScript client (apt-get install nodejs npm)");
        Optional<Path> file = LettaContract.file();
        assumeTrue(file.isPresent(), "skipped: Letta's contract shared/letta/openapi.json is not in this checkout");
        contract = file.get();
        client = LettaClientTest.installedClient();
        mcp = StubHttpMcpServer.start(MCP_TOKEN);
        // The quickstart's model and tools: its openai/gpt-4.1 answered by the scripted model, run_code in the sandbox,
        // web_search with a SearXNG on 127.0.0.1 that is never called; a secrets key, for the MCP server's token.
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", new EchoModel())
                .model("openai:gpt-4.1", new EchoModel()).code(CodeRunner.sandboxed())
                .web(WebFetcher.http(), SearchProviders.fromEnvironment(Map.of("SEARXNG_URL", "http://127.0.0.1:9"))))
                .environment(Map.of("ENGRAM_SECRETS_KEY", SECRETS_KEY)));
    }

    @AfterAll
    static void stop() {
        if (fx != null) {
            fx.close();
        }
        if (mcp != null) {
            mcp.close();
        }
    }

    @Test
    void everySelfHostedClientMethodPasses() throws Exception {
        String out = LettaClientTest.run(client, Map.of("ENGRAM_URL", fx.url(""), "KEY_A", fx.ana, "KEY_ADMIN", fx.admin,
                "CONTRACT", contract.toString(), "MCP_URL", mcp.url(), "MCP_TOKEN", MCP_TOKEN), 5, "node", "methods.mjs");
        System.out.println(out);
        Matcher count = COUNT.matcher(out);
        assertThat(count.find()).as(out).isTrue();
        Set<String> passing = PASS.matcher(out).results().map(r -> r.group(1)).collect(Collectors.toSet());
        assertThat(Integer.parseInt(count.group(1))).isEqualTo(passing.size());
        assertThat(out).as("what the methods need is created").doesNotContainPattern("(?m)^setup .* failed");
        assertThat(out).as("no method fails").doesNotContainPattern("(?m)^fail ");
        assertThat(Integer.parseInt(count.group(1))).as(out).isEqualTo(Integer.parseInt(count.group(2)));
        assertThat(passing).as("every method passes:%n%s", out).containsExactlyInAnyOrderElementsOf(EXPECTED_PASS);
        assertThat(mcp.calls()).as("the MCP tool was run").isPositive();
        assertThat(out).doesNotContain("unmatched ");
    }

    @Test
    void lettasQuickstartRunsAsLettasReadmeWritesIt() throws Exception {
        String out = LettaClientTest.run(client, Map.of("LETTA_BASE_URL", fx.url(""), "LETTA_API_KEY", fx.ana), 2,
                "node", "quickstart.mjs");
        assertThat(out).contains("Agent created with ID: agent-", "assistant_message", "What do you know about me?");
        List<String> lines = out.lines().toList();
        assertThat(lines).isNotEmpty();
    }
}
