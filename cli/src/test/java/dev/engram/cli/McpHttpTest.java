package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.mcp.McpServer;
import dev.engram.mcp.McpServerOptions;
import dev.engram.mcp.McpServerSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code engram mcp --http} as a real process: API keys (a key is its user), DNS-rebinding protection, sessions kept to
 * the user who opened them, and the agent created on first use; spoken to by raw HTTP and by Engram's MCP client.
 */
class McpHttpTest {
    private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}";
    private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

    @TempDir
    Path home;

    private String key(String user) {
        return Cli.ok(home, "keys", "create", "--user", user).out().strip();
    }

    private McpServer client(McpHttpProcess server, String key) {
        return McpServer.of(McpServerSpec.streamableHttp("mem", server.url(), Map.of()).withBearerToken(key),
                McpServerOptions.defaults().withConnectTimeout(Duration.ofMinutes(1)).withCallTimeout(Duration.ofMinutes(1)));
    }

    @Test
    void withoutAKeyOrWithAWrongOneTheAnswerIs401AndAnAdminKeyIs403() throws Exception {
        String admin = Cli.ok(home, "keys", "create", "--admin").out().strip();
        String ana = key("ana");
        try (McpHttpProcess server = McpHttpProcess.start(home, "--agent", "helper")) {
            McpHttpProcess.Answer none = server.raw("POST", McpHttpProcess.post(null, null), McpHttpProcess.initialize());
            assertThat(none.status()).isEqualTo(401);
            assertThat(none.header("WWW-Authenticate")).startsWith("Bearer");
            assertThat(none.body()).contains("Authorization: Bearer KEY").doesNotContain("mcp-session-id");
            assertThat(none.header("Mcp-Session-Id")).isEmpty();

            McpHttpProcess.Answer wrong = server.raw("POST", McpHttpProcess.post("engram_notAKeyOfThisServer", null),
                    McpHttpProcess.initialize());
            assertThat(wrong.status()).isEqualTo(401);
            assertThat(wrong.body()).contains("not valid");
            McpHttpProcess.Answer basic = server.raw("POST", Map.of("Authorization", "Basic " + ana,
                    "Accept", "application/json, text/event-stream", "Content-Type", "application/json"), McpHttpProcess.initialize());
            assertThat(basic.status()).as("only a bearer key counts").isEqualTo(401);

            McpHttpProcess.Answer byAdmin = server.raw("POST", McpHttpProcess.post(admin, null), McpHttpProcess.initialize());
            assertThat(byAdmin.status()).isEqualTo(403);
            assertThat(byAdmin.body()).contains("admin key acts as no user");

            McpHttpProcess.Answer good = server.raw("POST", McpHttpProcess.post(ana, null), McpHttpProcess.initialize());
            assertThat(good.status()).isEqualTo(200);
            assertThat(good.header("Mcp-Session-Id")).isNotBlank();
        }
        assertThat(Cli.ok(home, "agent", "list", "--user", "ana").out()).as("refused requests created nothing")
                .doesNotContain("helper");
    }

    @Test
    void aForeignHostOrOriginIsRefusedAndLoopbackOrAnAllowedOriginIsServed() throws Exception {
        String ana = key("ana");
        try (McpHttpProcess server = McpHttpProcess.start(home, "--allowed-origin", "https://app.example.com")) {
            Map<String, String> foreignHost = new LinkedHashMap<>(McpHttpProcess.post(ana, null));
            foreignHost.put("Host", "evil.example.com:" + server.port());
            McpHttpProcess.Answer host = server.raw("POST", foreignHost, McpHttpProcess.initialize());
            assertThat(host.status()).isEqualTo(421);
            assertThat(host.header("Mcp-Session-Id")).isEmpty();

            Map<String, String> foreignOrigin = new LinkedHashMap<>(McpHttpProcess.post(ana, null));
            foreignOrigin.put("Origin", "http://evil.example.com");
            McpHttpProcess.Answer origin = server.raw("POST", foreignOrigin, McpHttpProcess.initialize());
            assertThat(origin.status()).isEqualTo(403);
            assertThat(origin.header("Mcp-Session-Id")).isEmpty();

            for (String ok : new String[] {"http://localhost:5173", "https://app.example.com"}) {
                Map<String, String> allowed = new LinkedHashMap<>(McpHttpProcess.post(ana, null));
                allowed.put("Origin", ok);
                allowed.put("Host", "localhost:" + server.port());
                McpHttpProcess.Answer answer = server.raw("POST", allowed, McpHttpProcess.initialize());
                assertThat(answer.status()).as(ok).isEqualTo(200);
                assertThat(answer.body()).contains("\"serverInfo\"");
            }
        }
    }

    @Test
    void aSessionBelongsToTheKeysUserAndEndsWhenDeleted() throws Exception {
        String ana = key("ana");
        String ben = key("ben");
        try (McpHttpProcess server = McpHttpProcess.start(home)) {
            String session = server.raw("POST", McpHttpProcess.post(ana, null), McpHttpProcess.initialize()).header("Mcp-Session-Id");
            assertThat(session).isNotBlank();
            assertThat(server.raw("POST", McpHttpProcess.post(ana, session), INITIALIZED).status()).isEqualTo(202);

            McpHttpProcess.Answer listed = server.raw("POST", McpHttpProcess.post(ana, session), LIST);
            assertThat(listed.status()).isEqualTo(200);
            assertThat(listed.body()).contains("memory_save");

            McpHttpProcess.Answer byBen = server.raw("POST", McpHttpProcess.post(ben, session), LIST);
            assertThat(byBen.status()).as("another user's key cannot use ana's session").isEqualTo(404);
            assertThat(byBen.body()).doesNotContain("memory_save");

            assertThat(server.raw("POST", McpHttpProcess.post(ana, null), LIST).status()).as("no session id").isEqualTo(400);
            assertThat(server.raw("POST", McpHttpProcess.post(ana, "no-such-session"), LIST).status()).isEqualTo(404);

            Map<String, String> delete = McpHttpProcess.post(ana, session);
            assertThat(server.raw("DELETE", delete, "").status()).isEqualTo(200);
            assertThat(server.raw("POST", McpHttpProcess.post(ana, session), LIST).status()).as("a deleted session").isEqualTo(404);
        }
    }

    @Test
    void eachKeySeesItsOwnUsersMemoryAndTheAgentIsCreatedOnFirstUse() throws Exception {
        String ana = key("ana");
        String ben = key("ben");
        assertThat(Cli.ok(home, "agent", "list", "--user", "ana").out()).doesNotContain("helper");
        try (McpHttpProcess server = McpHttpProcess.start(home, "--agent", "helper");
                McpServer asAna = client(server, ana);
                McpServer asBen = client(server, ben)) {
            assertThat(asAna.listTools()).extracting(t -> t.name()).contains("memory_save", "block", "recall");
            assertThat(asAna.call("memory_save", Map.of("content", "Ana's report is due March 3"))).contains("note-");
            assertThat(asAna.call("block", Map.of("operation", "append", "label", "persona", "text", "I like tea.")))
                    .isNotBlank();
            assertThat(asAna.call("memory_search", Map.of("query", "when is the report due")))
                    .contains("Ana's report is due March 3");
            assertThat(asBen.call("memory_search", Map.of("query", "when is the report due")))
                    .doesNotContain("Ana's report");
        }
        assertThat(Cli.ok(home, "agent", "list", "--user", "ana").out()).contains("helper");
        assertThat(Cli.ok(home, "block", "show", "persona", "--agent", "helper", "--user", "ana").out()).contains("I like tea.");
        assertThat(Cli.ok(home, "agent", "list", "--user", "ben").out()).as("ben's agent, created by ben's first call")
                .contains("helper");
        assertThat(Cli.ok(home, "notes", "list", "--user", "ben").out()).doesNotContain("Ana's report");
    }

    @Test
    void overStdioTheAgentIsCreatedWhenItDoesNotExist() throws Exception {
        assertThat(Cli.ok(home, "agent", "list", "--user", "cleo").out()).doesNotContain("desk");
        Process p = new ProcessBuilder(EngramChild.command(home, "mcp", "--user", "cleo", "--agent", "desk", "--model",
                "openai:gpt-4.1-mini"))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        p.getOutputStream().close(); // the client leaves at once: the server has started, and created the agent, by then
        assertThat(p.waitFor()).isZero();
        assertThat(Cli.ok(home, "agent", "list", "--user", "cleo").out()).contains("desk");
        assertThat(Cli.ok(home, "agent", "show", "desk", "--user", "cleo").out()).contains("openai:gpt-4.1-mini");
    }

    @Test
    void badOptionsAreUsageErrorsAndStartNothing() {
        Cli.oneLineError(Cli.run(home, "mcp", "--http", "--user", "ana"), 2, "drop --user");
        Cli.oneLineError(Cli.run(home, "mcp"), 2, "Missing --user");
        Cli.oneLineError(Cli.run(home, "mcp", "--user", "ana", "--allowed-origin", "https://a.example"), 2, "--http only");
        Cli.oneLineError(Cli.run(home, "mcp", "--http", "--port", "0", "--allowed-origin", "a.example"), 2,
                "--allowed-origin must be an origin");
        assertThat(Cli.ok(home, "agent", "list", "--user", "ana").out()).doesNotContain("helper");
    }
}
