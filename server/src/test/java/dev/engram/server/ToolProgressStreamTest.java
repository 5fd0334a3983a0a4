package dev.engram.server;

import static dev.engram.server.ServerFixture.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** A running tool's output on the message stream: only when the request asks, as named events Letta's clients skip. */
class ToolProgressStreamTest {
    private static final String BUILD = "call {\"name\": \"build\", \"arguments\": {\"target\": \"app\"}}";

    record Target(String target) {
    }

    @TempDir
    Path dir;

    ServerFixture fx;
    String agent;

    @BeforeEach
    void start() {
        fx = new ServerFixture(dir, b -> b.runtime(rt -> rt.model("test:echo", new EchoModel())
                .tool(AiTool.of("build", "Builds a target.", Target.class, SafetyTier.READ_ONLY, (in, ctx) -> {
                    ctx.progress().report("compiling " + in.target() + " LIVE-ONLY\n");
                    return "built " + in.target();
                }))));
        agent = fx.post(fx.ana, "/v1/agents/", obj("name", "builder", "tools", List.of("build"))).json().path("id").asString();
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    /** Each SSE event of the answer as its name ("" when unnamed) and its data. */
    private List<String[]> events(Object body) {
        ServerFixture.Response r = fx.post(fx.ana, "/v1/agents/" + agent + "/messages/stream", body);
        assertThat(r.status()).isEqualTo(200);
        List<String[]> events = new ArrayList<>();
        String name = "";
        for (String line : r.text().split("\n")) {
            if (line.startsWith("event:")) {
                name = line.substring(6).trim();
            } else if (line.startsWith("data:")) {
                events.add(new String[] {name, line.substring(5).strip()});
            } else if (line.isBlank()) {
                name = "";
            }
        }
        return events;
    }

    @Test
    void aRequestThatAsksGetsTheToolsOutputAsNamedEventsBeforeItsReturn() {
        List<String[]> events = events(obj("input", BUILD, "include_tool_progress", true));

        List<JsonNode> progress = events.stream().filter(e -> e[0].equals("tool_progress"))
                .map(e -> ServerFixture.JSON.readTree(e[1])).toList();
        assertThat(progress).isNotEmpty().allSatisfy(p -> {
            assertThat(p.path("message_type").asString()).isEqualTo("tool_progress_message");
            assertThat(p.path("name").asString()).isEqualTo("build");
            assertThat(p.path("tool_call_id").asString()).isNotBlank();
            assertThat(p.has("seq_id")).isFalse();
        });
        assertThat(progress.stream().map(p -> p.path("chunk").asString()).reduce("", String::concat))
                .isEqualTo("compiling app LIVE-ONLY\n");
        List<String> unnamed = events.stream().filter(e -> e[0].isEmpty()).map(e -> e[1]).toList();
        assertThat(unnamed).noneMatch(d -> d.contains("LIVE-ONLY"));
        int firstProgress = indexOf(events, e -> e[0].equals("tool_progress"));
        int toolReturn = indexOf(events, e -> e[1].contains("\"tool_return_message\""));
        assertThat(firstProgress).isLessThan(toolReturn);
        assertThat(unnamed).anySatisfy(d -> assertThat(d).contains("done: built app"));
    }

    @Test
    void withoutAskingTheStreamHasNoProgressWithOrWithoutTokens() {
        List<String[]> plain = events(obj("input", BUILD));
        List<String[]> tokens = events(obj("input", BUILD, "stream_tokens", true));

        for (List<String[]> events : List.of(plain, tokens)) {
            assertThat(events).noneMatch(e -> e[0].equals("tool_progress") || e[1].contains("LIVE-ONLY"));
            assertThat(events).anyMatch(e -> e[1].contains("\"tool_return_message\""));
        }
    }

    private static int indexOf(List<String[]> events, Predicate<String[]> p) {
        for (int i = 0; i < events.size(); i++) {
            if (p.test(events.get(i))) {
                return i;
            }
        }
        throw new AssertionError("no such event");
    }
}
