package dev.engram.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code engram canvas open|list}, and the workbench tools in {@code engram tools list|call} with their flags. */
class WorkbenchCommandsTest {
    @TempDir
    Path home;

    @TempDir
    Path work;

    private Cli.Run ok(String... args) {
        return Cli.ok(home, args);
    }

    private void createHelper() {
        ok("agent", "create", "helper", "--user", "ana", "--model", "openai:gpt-4o-mini", "--id", "helper-1");
    }

    @Test
    void aCanvasWrittenByTheToolIsListedAndOpenedAsAFileThatKeepsItOffTheNetwork() throws Exception {
        createHelper();
        ok("tools", "call", "canvas", "--args", "{\"name\": \"chart\", \"title\": \"Sales\", \"html\": \"<!DOCTYPE html><p>v1</p>\"}",
                "--agent", "helper", "--user", "ana");
        ok("tools", "call", "canvas", "--args", "{\"name\": \"chart\", \"html\": \"<p>v2</p>\"}", "--agent", "helper", "--user", "ana");

        assertThat(ok("canvas", "list", "--agent", "helper", "--user", "ana").out()).contains("chart  v2").doesNotContain("v1");
        assertThat(ok("canvas", "list", "chart", "--agent", "helper", "--user", "ana").out()).contains("chart  v1", "Sales", "chart  v2");

        Path latest = Path.of(ok("canvas", "open", "chart", "--agent", "helper", "--user", "ana").out().strip());
        assertThat(latest).isEqualTo(home.resolve("canvas/helper-1/chart-v2.html").toAbsolutePath());
        assertThat(Files.readString(latest)).isEqualTo(CanvasCommands.META_CSP + "<p>v2</p>");
        assertThat(CanvasCommands.META_CSP).contains("connect-src 'none'", "default-src 'none'");
        Path first = work.resolve("first.html");
        ok("canvas", "open", "chart", "--agent", "helper", "--user", "ana", "--version", "1", "--out", first.toString());
        assertThat(Files.readString(first)).isEqualTo("<!DOCTYPE html>" + CanvasCommands.META_CSP + "<p>v1</p>");

        Cli.oneLineError(Cli.run(home, "canvas", "open", "chart", "--agent", "helper", "--user", "ana", "--version", "7"), 1,
                "has no canvas 'chart' version 7");
        Cli.oneLineError(Cli.run(home, "canvas", "open", "chart", "--agent", "helper", "--user", "ben"), 1, "ben");
    }

    @Test
    void chatWithAWebhookGivesANewAgentTheMessageToolAndTheMessageIsPosted() throws Exception {
        List<String> bodies = new CopyOnWriteArrayList<>();
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/hook", ex -> {
            bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        http.start();
        try {
            Path script = Files.writeString(work.resolve("chat.json"), """
                    {"turns": [
                      {"tool_calls": [{"name": "message", "arguments": {"text": "Ana says hi", "request_heartbeat": true}}]},
                      {"tool_calls": [{"name": "send_message", "arguments": {"message": "I told them."}}],
                       "expect_in_prompt": ["\\"delivered\\":true"]}
                    ]}""");
            ChatCommand.testInput = new ByteArrayInputStream("Tell the team I said hi\ny\n/exit\n".getBytes(StandardCharsets.UTF_8));
            Cli.Run r = ok("chat", "--user", "ana", "--model", "script:" + script, "--webhook",
                    "http://127.0.0.1:" + http.getAddress().getPort() + "/hook");
            assertThat(r.out()).contains("It uses message", "? message (privileged) wants to run", "I told them.");
            assertThat(bodies).singleElement().asString().contains("\"text\":\"Ana says hi\"", "\"user_id\":\"ana\"");
        } finally {
            ChatCommand.testInput = null;
            http.stop(0);
        }
    }

    @Test
    void toolsListShowsTheWorkbenchToolsWithTheirTiers() throws Exception {
        Path ws = Files.createDirectories(work.resolve("ws"));
        Path vault = Files.createDirectories(work.resolve("vault"));
        Files.writeString(vault.resolve("token.txt"), "s3cr3t");
        Files.writeString(vault.resolve("vault.json"), """
                {"items": [{"name": "token", "file": "token.txt", "agents": ["helper"]}]}""");

        String plain = ok("tools", "list").out();
        assertThat(plain).containsPattern("canvas\\s+side_effecting").doesNotContain("vault_copyto").doesNotContainPattern("(?m)^message\\s");
        String all = ok("tools", "list", "--workspace", ws.toString(), "--vault", vault.toString(), "--webhook",
                "http://127.0.0.1:9/hook").out();
        assertThat(all).containsPattern("vault_list\\s+read_only").containsPattern("vault_copyto\\s+side_effecting")
                .containsPattern("message\\s+privileged");
        Cli.oneLineError(Cli.run(home, "tools", "list", "--vault", vault.toString()), 1, "--vault needs --workspace");
        Cli.oneLineError(Cli.run(home, "tools", "list", "--webhook", "ftp://x/"), 1, "absolute http or https URL");

        createHelper();
        String copied = ok("tools", "call", "vault_copyto", "--args", "{\"item\": \"token\", \"destination\": \"conf/token\"}",
                "--agent", "helper", "--user", "ana", "--workspace", ws.toString(), "--vault", vault.toString()).out();
        assertThat(copied).contains("conf/token").doesNotContain("s3cr3t");
        assertThat(Files.readString(ws.resolve("conf/token"))).isEqualTo("s3cr3t");
    }
}
