package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.CanvasArtefact;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.Scope;
import dev.engram.tools.OutboundChannel;
import dev.engram.tools.Vault;
import dev.engram.tools.Workspace;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The workbench tools end to end: a scripted model calls {@code canvas}, {@code vault_list}/{@code vault_copyto} and
 * {@code message}; the effect is stored (or sent), and the next prompt and the stored conversation show it.
 */
class CanvasVaultMessageToolsTest {
    private static final Scope ANA = Scope.of("ana", "helper");
    private static final String SECRET = "-----BEGIN KEY----- s3cr3t-vault-content -----END KEY-----";

    @TempDir
    Path dir;

    private AgentFixture fx;
    private HttpServer http;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
        if (http != null) {
            http.stop(0);
        }
    }

    private Agent agent(String... tools) {
        return fx.runtime.create(AgentDefinition.builder("ana").id("helper").name("Helper").model("script:test")
                .addTools(tools).approvalMode(ApprovalMode.YOLO).build());
    }

    @Test
    void theModelWritesACanvasTwiceAndTheNextPromptShowsWhereItIs() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "canvas", "arguments": {"name": "chart", "title": "Sales",
                      "html": "<html><body><canvas id=c></canvas><script>draw()</script></body></html>", "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "canvas", "arguments": {"name": "chart", "html": "<html><body>v2</body></html>",
                      "request_heartbeat": true}}],
                   "expect_in_prompt": ["Saved version 1 of canvas 'chart'", "/canvas/helper/chart?version=1"]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Open the chart."}}],
                   "expect_in_prompt": ["Saved version 2 of canvas 'chart'"]}
                ]}""");
        fx = new AgentFixture(dir).open("script:test", model);
        AgentResponse r = agent("canvas").send("Draw my sales.");

        assertThat(r.toolResults()).extracting(t -> t.status()).containsOnly(ToolStatus.SUCCESS);
        assertThat(fx.store.canvases().versions(ANA, "chart")).extracting(CanvasArtefact::version, CanvasArtefact::title)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, "Sales"), org.assertj.core.groups.Tuple.tuple(2, ""));
        assertThat(fx.store.canvases().latest(ANA, "chart").orElseThrow().content()).isEqualTo("<html><body>v2</body></html>");
        assertThat(fx.messages(ANA)).anyMatch(m -> m.content().contains("\"version\":2"));
        assertThat(model.remaining()).isZero();
    }

    @Test
    void aCanvasWithABadNameIsAnErrorTheModelReadsAndNothingIsStored() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "canvas", "arguments": {"name": "../../etc/passwd", "html": "<p>x</p>",
                      "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Bad name."}}],
                   "expect_in_prompt": ["canvas name '../../etc/passwd' is not valid"]}
                ]}""");
        fx = new AgentFixture(dir).open("script:test", model);
        AgentResponse r = agent("canvas").send("Draw it.");

        assertThat(r.toolResults().getFirst().status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(fx.store.canvases().list(ANA)).isEmpty();
        assertThat(model.remaining()).isZero();
    }

    @Test
    void aVaultItemIsCopiedIntoTheWorkspaceAndItsContentNeverReachesTheModelOrTheConversation() throws Exception {
        Path vaultDir = Files.createDirectories(dir.resolve("vault"));
        Files.createDirectories(vaultDir.resolve("keys"));
        Files.writeString(vaultDir.resolve("keys/deploy"), SECRET);
        Files.writeString(vaultDir.resolve(Vault.MANIFEST), """
                {"items": [{"name": "deploy-key", "file": "keys/deploy", "agents": ["Helper"], "description": "deploy host key"},
                           {"name": "other", "file": "keys/deploy", "agents": ["someone-else"]}]}""");
        Path ws = Files.createDirectories(dir.resolve("ws"));
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "vault_list", "arguments": {"request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "vault_copyto", "arguments": {"item": "deploy-key", "destination": "secrets/key",
                      "request_heartbeat": true}}],
                   "expect_in_prompt": ["deploy-key", "deploy host key", "%d"]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Key in place."}}],
                   "expect_in_prompt": ["Copied vault item 'deploy-key'", "secrets/key"]}
                ]}""".formatted(SECRET.length()));
        fx = new AgentFixture(dir).open(b -> b.model("script:test", model).workspace(Workspace.of(ws))
                .vault(Vault.open(vaultDir)));
        AgentResponse r = agent("vault_list", "vault_copyto").send("Put the deploy key in place.");

        assertThat(r.toolResults()).extracting(t -> t.status()).containsOnly(ToolStatus.SUCCESS);
        assertThat(Files.readString(ws.resolve("secrets/key"))).isEqualTo(SECRET);
        assertThat(r.toolResults().getFirst().content()).doesNotContain("\"other\"");
        for (ConversationMessage m : fx.messages(ANA)) {
            assertThat(m.content()).doesNotContain("s3cr3t");
            m.toolCalls().forEach(c -> assertThat(c.arguments()).doesNotContain("s3cr3t"));
        }
        assertThat(model.requests()).allSatisfy(req -> assertThat(req.toString()).doesNotContain("s3cr3t"));
    }

    @Test
    void theMessageToolPostsToTheOperatorsWebhookAndTheNextPromptSaysItWasDelivered() throws Exception {
        List<String> bodies = new CopyOnWriteArrayList<>();
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/hook", ex -> {
            bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        http.start();
        URI url = URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/hook");
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "message", "arguments": {"text": "Build 42 is green.",
                      "links": ["/canvas/helper/chart?version=1"], "request_heartbeat": true}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Told the team."}}],
                   "expect_in_prompt": ["\\"delivered\\":true", "HTTP 204"]}
                ]}""");
        fx = new AgentFixture(dir).open(b -> b.model("script:test", model).outboundChannel(OutboundChannel.webhook("team", url)));
        AgentResponse r = agent("message").send("Tell the team the build is green.");

        assertThat(r.toolResults()).extracting(t -> t.status()).containsOnly(ToolStatus.SUCCESS);
        assertThat(bodies).hasSize(1);
        assertThat(bodies.getFirst()).contains("\"channel\":\"team\"", "\"user_id\":\"ana\"", "\"agent_id\":\"helper\"",
                "\"text\":\"Build 42 is green.\"", "\"links\":[\"/canvas/helper/chart?version=1\"]");
        assertThat(fx.messages(ANA)).anyMatch(m -> m.content().contains("\"channel\":\"team\""));
    }
}
