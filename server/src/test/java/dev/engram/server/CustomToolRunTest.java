package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.tools.CodeRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Custom tools running in the sandbox on {@code engram serve --code}: from source with {@code POST /v1/tools/run}, as an
 * agent's tool with {@code POST /v1/agents/{id}/tools/{name}/run}, and called by the agent's model in a turn, each
 * through the tool pipeline. Skipped, saying what to install, without bwrap or python3.
 */
class CustomToolRunTest {
    private static final String ADD = """
            def add(a: int, b: int = 1) -> int:
                \"""Add two numbers.

                Args:
                    a: The first.
                    b: The second.
                \"""
                print("adding", a, b)
                return a + b
            """;

    @TempDir
    Path dir;
    ServerFixture fx;

    @BeforeEach
    void start() {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "skipped: bwrap is not installed (apt-get install bubblewrap util-linux)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "skipped: python3 is not installed (apt-get install python3)");
        ScriptedChatModel model = ScriptedChatModel.fromJson("""
                {"turns": [
                  {"tool_calls": [{"id": "call_add", "name": "add", "arguments": {"a": 40, "b": 2}}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "It is 42."}}]}
                ]}""");
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:script", model).code(CodeRunner.sandboxed())));
    }

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void sourceRunsWithItsArgumentsAndAnswersWhatItReturnedAndPrinted() {
        ServerFixture.Response run = fx.post(fx.ana, "/v1/tools/run", obj("source_code", ADD, "args", obj("a", 2, "b", 3)));
        assertThat(run.status()).as(run.text()).isEqualTo(200);
        assertThat(run.json().path("message_type").asString()).isEqualTo("tool_return_message");
        assertThat(run.json().path("status").asString()).isEqualTo("success");
        assertThat(run.json().path("tool_return").asString()).isEqualTo("5");
        assertThat(run.json().path("name").asString()).isEqualTo("add");
        assertThat(run.json().path("stdout").path(0).asString()).isEqualTo("adding 2 3\n");

        ServerFixture.Response invalid = fx.post(fx.ana, "/v1/tools/run", obj("source_code", ADD, "args", obj("a", "two")));
        assertThat(invalid.status()).isEqualTo(200);
        assertThat(invalid.json().path("status").asString()).isEqualTo("error");
        assertThat(invalid.json().path("tool_return").asString()).contains("arguments invalid").contains("a");
        assertThat(invalid.json().path("stdout")).as("nothing ran").isEmpty();

        ServerFixture.Response raised = fx.post(fx.ana, "/v1/tools/run", obj("source_code",
                "def fail(x: int):\n    raise ValueError('bad ' + str(x))\n", "args", obj("x", 7)));
        assertThat(raised.json().path("status").asString()).isEqualTo("error");
        assertThat(raised.json().path("tool_return").asString()).contains("ValueError: bad 7");
        assertThat(raised.json().path("stderr").path(0).asString()).contains("Traceback");
    }

    @Test
    void anAgentsCustomToolRunsByNameAndInATurnOfItsModel() {
        assertThat(fx.post(fx.ana, "/v1/tools/", obj("source_code", ADD)).status()).isEqualTo(200);
        ServerFixture.Response created = fx.post(fx.ana, "/v1/agents/", obj("name", "adder", "model", "test:script",
                "tools", List.of("add")));
        assertThat(created.status()).as(created.text()).isEqualTo(200);
        String agent = created.json().path("id").asString();

        ServerFixture.Response run = fx.post(fx.ana, "/v1/agents/" + agent + "/tools/add/run", obj("args", obj("a", 20, "b", 22)));
        assertThat(run.status()).as(run.text()).isEqualTo(200);
        assertThat(run.json().path("status").asString()).isEqualTo("success");
        assertThat(run.json().path("func_return").asString()).isEqualTo("42");
        ServerFixture.Response bad = fx.post(fx.ana, "/v1/agents/" + agent + "/tools/add/run", obj("args", obj()));
        assertThat(bad.json().path("status").asString()).isEqualTo("error");
        assertThat(bad.json().path("stderr").path(0).asString()).contains("a");

        ServerFixture.Response turn = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("messages",
                List.of(obj("role", "user", "content", "What is 40 + 2?"))));
        assertThat(turn.status()).as(turn.text()).isEqualTo(200);
        JsonNode toolReturn = turn.json().path("messages").valueStream()
                .filter(m -> m.path("message_type").asString().equals("tool_return_message")).findFirst().orElseThrow();
        assertThat(toolReturn.path("status").asString()).isEqualTo("success");
        assertThat(toolReturn.path("tool_return").asString()).isEqualTo("42");
    }

    @Test
    void aToolThatRequiresApprovalAsksBeforeItRunsInATurn() {
        assertThat(fx.post(fx.ana, "/v1/tools/", obj("source_code", ADD, "default_requires_approval", true)).status())
                .isEqualTo(200);
        String agent = fx.post(fx.ana, "/v1/agents/", obj("name", "careful", "model", "test:script", "tools", List.of("add")))
                .json().path("id").asString();
        ServerFixture.Response turn = fx.post(fx.ana, "/v1/agents/" + agent + "/messages", obj("messages",
                List.of(obj("role", "user", "content", "What is 40 + 2?"))));
        assertThat(turn.status()).as(turn.text()).isEqualTo(200);
        assertThat(turn.json().path("messages").valueStream().map(m -> m.path("message_type").asString()))
                .contains("approval_request_message").doesNotContain("tool_return_message");
    }
}
