package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.mcp.McpServerOptions;
import dev.engram.mcp.StubHttpMcpServer;
import dev.engram.mcp.StubMcpServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * MCP servers over the API: registered per user under the operator's policy, their tools attached to agents and run
 * in turns, and a server that stalls or crashes mid-call leaving the turn answered with a tool error and its status
 * reported. The {@code @Timeout} only guards against a hang; the call timeout under test is 2 s.
 */
@Timeout(300)
class McpServerEndpointsTest {
    private static final String KEY = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
    private static final McpServerOptions QUICK = McpServerOptions.defaults().withConnectTimeout(Duration.ofSeconds(30))
            .withCallTimeout(Duration.ofSeconds(2)).withCircuit(2, Duration.ofMinutes(5));

    @TempDir
    Path dir;
    ServerFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private void start(ScriptedChatModel model, Consumer<EngramServer.Builder> more) {
        fx = new ServerFixture(dir, b -> {
            b.runtime(rt -> rt.model("test:script", model)).environment(Map.of("ENGRAM_SECRETS_KEY", KEY))
                    .mcpServers(McpServerPolicy.defaults().withOptions(QUICK));
            more.accept(b);
        });
    }

    private static ScriptedChatModel callsEchoTwice(String tool) {
        String call = "{\"tool_calls\": [{\"name\": \"" + tool + "\", \"arguments\": {\"text\": \"hi\"}}]}";
        String reply = "{\"tool_calls\": [{\"name\": \"send_message\", \"arguments\": {\"message\": \"The tool failed.\"}}]}";
        return ScriptedChatModel.fromJson("{\"turns\": [" + call + ", " + reply + ", " + call + ", " + reply + "]}");
    }

    /** ana's agent on the script, in yolo mode (an MCP tool is privileged: it would ask first), with {@code tool}. */
    private String agentWith(String tool) {
        String agent = fx.agent(fx.ana, "helper");
        assertThat(fx.patch(fx.ana, "/v1/agents/" + agent, obj("model", "test:script")).status()).isEqualTo(200);
        fx.server.runtime().modify("ana", agent, d -> d.toBuilder().approvalMode(ApprovalMode.YOLO).build());
        ServerFixture.Response attached = fx.patch(fx.ana, "/v1/agents/" + agent + "/tools/attach/tool-" + tool, obj());
        assertThat(attached.status()).as(attached.text()).isEqualTo(200);
        return agent;
    }

    private static List<JsonNode> returns(ServerFixture.Response turn) {
        List<JsonNode> out = new ArrayList<>();
        turn.json().path("messages").forEach(m -> {
            if (m.path("message_type").asString().equals("tool_return_message")) {
                out.add(m);
            }
        });
        return out;
    }

    private String stdioServer(String name, String mode) {
        List<String> command = StubMcpServer.command(mode);
        ServerFixture.Response created = fx.post(fx.admin, "/v1/mcp-servers/", obj("server_name", name, "user_id", "ana",
                "config", obj("mcp_server_type", "stdio", "command", command.getFirst(), "args", command.subList(1, command.size()))));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        assertThat(created.json().path("status").path("state").asString()).isEqualTo("connected");
        return created.json().path("id").asString();
    }

    @Test
    void aServerThatStallsLeavesEachTurnAnsweredWithAToolErrorThenItsCircuitOpens() {
        start(callsEchoTwice("stall_echo"), b -> { });
        String server = stdioServer("stall", "stall");
        String agent = agentWith("stall_echo");

        ServerFixture.Response turn = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("Echo hi."));

        assertThat(turn.status()).as(turn.text()).isEqualTo(200);
        assertThat(returns(turn).getFirst().path("status").asString()).isEqualTo("error");
        assertThat(returns(turn).getFirst().path("tool_return").asString())
                .contains("MCP server 'stall' failed to run 'echo': it did not answer within 2 s (it may be stalled)");
        JsonNode status = fx.get(fx.ana, "/v1/mcp-servers/" + server).json().path("status");
        assertThat(status.path("state").asString()).isEqualTo("failing");
        assertThat(status.path("last_error").asString()).contains("stalled");

        ServerFixture.Response again = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("Again."));
        assertThat(again.status()).as(again.text()).isEqualTo(200);
        status = fx.get(fx.ana, "/v1/mcp-servers/" + server).json().path("status");
        assertThat(status.path("state").asString()).isEqualTo("circuit_open");
        assertThat(status.path("consecutive_failures").asInt()).isEqualTo(2);
        assertThat(status.path("retry_at").isString()).isTrue();
    }

    @Test
    void aServerThatCrashesMidCallLeavesTheTurnAnsweredWithAToolError() {
        start(callsEchoTwice("crash_echo"), b -> { });
        String server = stdioServer("crash", "crash");
        String agent = agentWith("crash_echo");

        ServerFixture.Response turn = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("Echo hi."));

        assertThat(turn.status()).as(turn.text()).isEqualTo(200);
        assertThat(returns(turn).getFirst().path("status").asString()).isEqualTo("error");
        assertThat(returns(turn).getFirst().path("tool_return").asString()).contains("MCP server 'crash' failed to run 'echo'");
        assertThat(fx.get(fx.ana, "/v1/mcp-servers/" + server).json().path("status").path("state").asString())
                .isEqualTo("failing");
    }

    @Test
    void aUserKeyMayNotStartAProgramUnlessTheOperatorAllowsItAndNothingIsStored() {
        List<String> command = StubMcpServer.command("ok");
        start(callsEchoTwice("x"), b -> b.mcpServers(McpServerPolicy.defaults().withOptions(QUICK)
                .allowingPrograms(Set.of(command.getFirst()))));
        ServerFixture.Response refused = fx.post(fx.ana, "/v1/mcp-servers/", obj("server_name", "sh", "config",
                obj("mcp_server_type", "stdio", "command", "/bin/sh", "args", List.of("-c", "id"))));
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.detail()).contains("only an admin key registers one").contains("--mcp-command /bin/sh");
        ServerFixture.Response preload = fx.post(fx.ana, "/v1/mcp-servers/", obj("server_name", "ok", "config",
                obj("command", command.getFirst(), "args", command.subList(1, command.size()), "env", Map.of("LD_PRELOAD", "/x.so"))));
        assertThat(preload.status()).isEqualTo(403);
        assertThat(preload.detail()).contains("LD_PRELOAD");
        assertThat(fx.store.mcpServers().list("ana")).isEmpty();

        ServerFixture.Response allowed = fx.post(fx.ana, "/v1/mcp-servers/", obj("server_name", "ok", "config",
                obj("command", command.getFirst(), "args", command.subList(1, command.size()))));
        assertThat(allowed.status()).as(allowed.text()).isEqualTo(200);
        String id = allowed.json().path("id").asString();
        assertThat(fx.get(fx.ana, "/v1/mcp-servers/" + id + "/tools").json().path(0).path("name").asString()).isEqualTo("ok_echo");
        ServerFixture.Response run = fx.post(fx.ana, "/v1/mcp-servers/" + id + "/tools/tool-ok_echo/run",
                obj("args", Map.of("text", "hi")));
        assertThat(run.json().path("status").asString()).isEqualTo("success");
        assertThat(run.json().path("func_return").asString()).isEqualTo("echo: hi");
        ServerFixture.Response invalid = fx.post(fx.ana, "/v1/mcp-servers/" + id + "/tools/echo/run", obj("args", Map.of()));
        assertThat(invalid.json().path("status").asString()).isEqualTo("error");
        assertThat(fx.get(fx.ben, "/v1/mcp-servers/" + id).status()).isEqualTo(404);
        assertThat(fx.get(fx.ben, "/v1/mcp-servers/").json()).isEmpty();
    }

    @Test
    void aUserKeysHttpServerIsReachedAtPublicAddressesOnlyUnlessTheOperatorAllowsOthers() throws Exception {
        try (StubHttpMcpServer http = StubHttpMcpServer.start("s3cret")) {
            start(callsEchoTwice("x"), b -> { });
            ServerFixture.Response refused = fx.post(fx.ana, "/v1/mcp-servers/", obj("server_name", "calc", "config",
                    obj("mcp_server_type", "streamable_http", "server_url", http.url(), "auth_token", "s3cret")));
            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.detail()).contains("resolves to 127.0.0.1").contains("only public addresses");
            assertThat(fx.store.mcpServers().list("ana")).isEmpty();
            assertThat(http.requests()).isZero();
        }
    }

    @Test
    void streamableHttpWithABearerTokenSealedAttachedAndRunInATurn() throws Exception {
        ScriptedChatModel model = ScriptedChatModel.fromJson("""
                {"turns": [
                  {"tool_calls": [{"name": "calc_add", "arguments": {"a": 1, "b": 2}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "It is 3."}}]}
                ]}""");
        try (StubHttpMcpServer http = StubHttpMcpServer.start("s3cret")) {
            start(model, b -> b.mcpServers(McpServerPolicy.defaults().withOptions(QUICK).allowingPrivateAddresses(true)));
            ServerFixture.Response created = fx.post(fx.ana, "/v1/mcp-servers/", obj("server_name", "calc", "config",
                    obj("mcp_server_type", "streamable_http", "server_url", http.url(), "auth_token", "s3cret")));
            assertThat(created.status()).as(created.text()).isEqualTo(200);
            assertThat(created.json().path("auth_token").asString()).isEqualTo("********");
            assertThat(created.text()).doesNotContain("s3cret");
            assertThat(fx.store.mcpServers().list("ana").getFirst().sealedSecrets()).isNotEmpty().doesNotContain("s3cret");
            assertThat(fx.get(fx.ana, "/v1/tools/mcp/servers").json().path("calc").path("server_url").asString())
                    .isEqualTo(http.url());
            assertThat(fx.get(fx.ana, "/v1/tools/mcp/servers/calc/tools").json().path(0).path("name").asString())
                    .isEqualTo("add");

            String agent = agentWith("calc_add");
            assertThat(fx.patch(fx.ben, "/v1/agents/" + agent + "/tools/attach/tool-calc_add", obj()).status()).isEqualTo(404);
            ServerFixture.Response turn = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", fx.userMessage("1 + 2?"));
            assertThat(turn.status()).as(turn.text()).isEqualTo(200);
            assertThat(returns(turn).getFirst().path("tool_return").asString()).isEqualTo("3.0");
            assertThat(returns(turn).getFirst().path("status").asString()).isEqualTo("success");

            assertThat(fx.delete(fx.ana, "/v1/mcp-servers/" + created.json().path("id").asString()).status()).isEqualTo(204);
            assertThat(fx.get(fx.ana, "/v1/agents/" + agent + "/tools").json().findValuesAsString("name"))
                    .doesNotContain("calc_add");
            assertThat(fx.store.mcpServers().list("ana")).isEmpty();
        }
    }

    @Test
    void withoutTheOperatorsKeySecretsAreRefusedAndNothingIsStored() {
        fx = new ServerFixture(dir, b -> b.environment(Map.of()).mcpServers(McpServerPolicy.defaults()
                .allowingPrivateAddresses(true)));
        ServerFixture.Response refused = fx.post(fx.ana, "/v1/mcp-servers/", obj("server_name", "calc", "config",
                obj("mcp_server_type", "streamable_http", "server_url", "http://127.0.0.1:9/mcp", "auth_token", "t")));
        assertThat(refused.status()).isEqualTo(501);
        assertThat(refused.detail()).contains("ENGRAM_SECRETS_KEY");
        assertThat(fx.store.mcpServers().list("ana")).isEmpty();
    }
}
