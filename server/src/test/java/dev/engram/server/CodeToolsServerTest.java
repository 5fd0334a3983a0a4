package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.SearchProviders;
import dev.engram.tools.WebFetcher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Letta's quickstart on {@code engram serve --code --web}: {@code agents.create({..., tools: ["web_search",
 * "run_code"]})} succeeds and {@code run_code} runs in the sandbox; without {@code --code} the same create is a 400
 * naming {@code --code}, and nothing is created.
 */
class CodeToolsServerTest {
    @TempDir
    Path dir;

    private ServerFixture fx;

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    /**
     * Letta's quickstart body, as its documentation writes it but for {@code embedding}, which this server refuses with a
     * 422 of its own (the server embeds with one model).
     */
    private static Object quickstart() {
        return obj("model", "openai/gpt-4.1",
                "memory_blocks", List.of(obj("label", "human", "value", "Name: Timber. Status: dog. Occupation: building Letta, "
                        + "infrastructure to democratize self-improving superintelligence"),
                        obj("label", "persona", "value", "I am a self-improving superintelligence. Timber is my best friend and "
                                + "collaborator.")),
                "tools", List.of("web_search", "run_code"));
    }

    private static List<String> toolNames(JsonNode agent) {
        return agent.path("tools").valueStream().map(t -> t.path("name").asString()).toList();
    }

    @Test
    void lettasQuickstartCreateSucceedsWithCodeAndWeb() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "skipped: bwrap is not installed (apt-get install bubblewrap util-linux)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "skipped: python3 is not installed (apt-get install python3)");
        ScriptedChatModel model = ScriptedChatModel.fromJson("""
                {"turns": [
                  {"tool_calls": [{"id": "call_run", "name": "run_code", "arguments": {"code": "print(sum(range(10)))", "language": "python"}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "It is 45."}}]}
                ]}""");
        // web_search needs a search provider: a SearXNG on 127.0.0.1 (never called here).
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:script", model).code(CodeRunner.sandboxed())
                .web(WebFetcher.http(), SearchProviders.fromEnvironment(Map.of("SEARXNG_URL", "http://127.0.0.1:9")))));

        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", quickstart());

        assertThat(created.status()).as(created.text()).isEqualTo(200);
        assertThat(toolNames(created.json())).contains("web_search", "run_code");
        String id = created.json().path("id").asString();
        ServerFixture.Response moved = fx.patch(fx.ana, "/v1/agents/" + id, obj("model", "test:script"));
        assertThat(moved.status()).as(moved.text()).isEqualTo(200);
        ServerFixture.Response turn = fx.post(fx.ana, "/v1/agents/" + id + "/messages", obj("messages",
                List.of(obj("role", "user", "content", "What is the sum of 0..9? Use code."))));
        assertThat(turn.status()).as(turn.text()).isEqualTo(200);
        List<JsonNode> returns = new ArrayList<>();
        turn.json().path("messages").forEach(m -> {
            if (m.path("message_type").asString().equals("tool_return_message")) {
                returns.add(m);
            }
        });
        assertThat(returns.getFirst().path("tool_return").asString()).contains("\"stdout\":[\"45\\n\"]");
        assertThat(returns.getFirst().path("status").asString()).isEqualTo("success");
    }

    @Test
    void withoutCodeTheQuickstartCreateIsA400NamingCodeAndNothingIsCreated() {
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.web(WebFetcher.http(),
                SearchProviders.fromEnvironment(Map.of("SEARXNG_URL", "http://127.0.0.1:9")))));

        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/", quickstart());

        assertThat(r.status()).as(r.text()).isEqualTo(400);
        assertThat(r.detail()).startsWith("Tools not found by name: {'run_code'}.").contains("engram serve with --code");
        assertThat(fx.store.agents().list("ana")).isEmpty();
    }
}
