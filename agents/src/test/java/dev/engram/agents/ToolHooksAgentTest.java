package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolHook;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tool hooks, turn hooks and live tool output in an agent's turn, through the scripted model. */
class ToolHooksAgentTest {
    @TempDir
    Path dir;

    private AgentFixture fx;

    record Command(String command) {
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private static String toolResultsSeenBy(ChatRequest request) {
        return String.join("\n", request.messages().stream().filter(m -> m instanceof ChatMessage.ToolResult)
                .map(m -> ((ChatMessage.ToolResult) m).content()).toList());
    }

    private static AiTool<Command, String> build(List<String> ran) {
        return AiTool.of("build", "Runs a build command.", Command.class, SafetyTier.READ_ONLY, (in, ctx) -> {
            ran.add(in.command());
            ctx.progress().report("[1/2] compiling PROGRESS-ONLY\n");
            ctx.progress().report("[2/2] linking\n");
            return "build of '" + in.command() + "' passed";
        });
    }

    @Test
    void aHookDeniesACallAndTheModelReadsTheReason() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "build", "arguments": {"command": "make deploy", "request_heartbeat": true}}]},
                  {"text": "I may not deploy."}
                ]}""");
        List<String> ran = new CopyOnWriteArrayList<>();
        fx = new AgentFixture(dir).open(b -> b.model("script:m", model).tool(build(ran)).toolHook(new ToolHook() {
            @Override
            public Before before(ToolCall call, ToolContext context) {
                return call.arguments().contains("deploy") ? Before.deny("deploying needs a human on call") : Before.allow();
            }
        }));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("dev").model("script:m").addTools("build").build());

        AgentResponse r = agent.send("Deploy it.");

        assertThat(ran).isEmpty();
        assertThat(r.toolResults()).singleElement().satisfies(t -> {
            assertThat(t.status()).isEqualTo(ToolStatus.DENIED_BY_POLICY);
            assertThat(t.content()).contains("deploying needs a human on call");
        });
        assertThat(toolResultsSeenBy(model.requests().get(1))).contains("deploying needs a human on call");
        List<ConversationMessage> stored = fx.store.messages().list(agent.scope(), MessageQuery.inContext().newest(10));
        assertThat(stored).anySatisfy(m -> assertThat(m.content()).contains("deploying needs a human on call"));
    }

    @Test
    void aHookOfTheRuntimeRewritesArgumentsAndItsNoteReachesTheModel() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"name": "build", "arguments": {"command": "make", "request_heartbeat": true}}]},
                  {"text": "built"}
                ]}""");
        List<String> ran = new CopyOnWriteArrayList<>();
        fx = new AgentFixture(dir).open(b -> b.model("script:m", model).tool(build(ran)).toolHook(new ToolHook() {
            @Override
            public Before before(ToolCall call, ToolContext context) {
                return Before.rewrite(call.arguments().replace("\"make\"", "\"make -j2\""))
                        .withContext("Note: builds run with -j2 on this machine.");
            }
        }));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("dev").model("script:m").addTools("build").build());

        agent.send("Build it.");

        assertThat(ran).containsExactly("make -j2");
        assertThat(toolResultsSeenBy(model.requests().get(1)))
                .contains("build of 'make -j2' passed\n\nNote: builds run with -j2 on this machine.");
    }

    @Test
    void aToolsProgressReachesTheStreamListenerBeforeItsResultAndNeverTheModel() {
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"id": "call-b", "name": "build", "arguments": {"command": "make", "request_heartbeat": true}}]},
                  {"text": "built"}
                ]}""");
        fx = new AgentFixture(dir).open(b -> b.model("script:m", model).tool(build(new CopyOnWriteArrayList<>())));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("dev").model("script:m").addTools("build").build());
        List<AgentStreamEvent> events = new CopyOnWriteArrayList<>();

        agent.stream("Build it.", events::add);

        List<AgentStreamEvent.ToolProgress> progress = events.stream().filter(e -> e instanceof AgentStreamEvent.ToolProgress)
                .map(e -> (AgentStreamEvent.ToolProgress) e).toList();
        assertThat(progress).isNotEmpty().allSatisfy(p -> {
            assertThat(p.toolName()).isEqualTo("build");
            assertThat(p.step()).isEqualTo(1);
        });
        String callId = progress.getFirst().callId();
        assertThat(callId).isNotBlank();
        assertThat(String.join("", progress.stream().map(AgentStreamEvent.ToolProgress::chunk).toList()))
                .isEqualTo("[1/2] compiling PROGRESS-ONLY\n[2/2] linking\n");
        int lastProgress = events.indexOf(progress.getLast());
        int toolReturn = events.indexOf(events.stream().filter(e -> e instanceof AgentStreamEvent.ToolReturn r
                && r.result().callId().equals(callId)).findFirst().orElseThrow());
        assertThat(lastProgress).isLessThan(toolReturn);
        assertThat(model.requests().get(1).toString()).doesNotContain("PROGRESS-ONLY");
    }

    @Test
    void turnHooksRunAtTheStartAndEndOfATurnAndOneThatThrowsIsSkipped() {
        ScriptedChatModel model = script("""
                {"turns": [{"text": "hello"}]}""");
        List<String> log = new CopyOnWriteArrayList<>();
        fx = new AgentFixture(dir).open(b -> b.model("script:m", model).turnHook(new TurnHook() {
            @Override
            public void turnStarted(Started turn) {
                throw new IllegalStateException("broken hook");
            }
        }).turnHook(new TurnHook() {
            @Override
            public void turnStarted(Started turn) {
                log.add("start " + turn.userId() + "/" + turn.agentId() + "/" + turn.sessionId() + ": " + turn.message());
            }

            @Override
            public void turnEnded(Ended turn) {
                log.add("end " + turn.response().flatMap(AgentResponse::reply).orElse("-"));
            }
        }));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("dev").model("script:m").build());

        AgentResponse r = agent.send("Hi");

        assertThat(r.reply()).contains("hello");
        assertThat(log).containsExactly("start ana/dev/default: Hi", "end hello");
    }

    @Test
    void theEndHookHearsOfAFailedTurn() {
        ScriptedChatModel model = script("""
                {"turns": []}""");
        List<Optional<AgentResponse>> ended = new CopyOnWriteArrayList<>();
        fx = new AgentFixture(dir).open(b -> b.model("script:m", model).turnHook(new TurnHook() {
            @Override
            public void turnEnded(Ended turn) {
                ended.add(turn.response());
            }
        }));
        Agent agent = fx.runtime.create(AgentDefinition.builder("ana").id("dev").model("script:m").build());

        assertThatThrownBy(() -> agent.send("Hi")).isInstanceOf(RuntimeException.class);
        assertThat(ended).containsExactly(Optional.empty());
    }

    @Test
    void theBuilderRejectsNullHooks() {
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        fx = new AgentFixture(dir).open(b -> {
            errors.add(catchThrowable(() -> b.toolHook(null)));
            errors.add(catchThrowable(() -> b.turnHook(null)));
        });
        assertThat(errors).hasSize(2).allSatisfy(e -> assertThat(e).isInstanceOf(NullPointerException.class));
        assertThat(errors.get(0)).hasMessageContaining("tool hook");
        assertThat(errors.get(1)).hasMessageContaining("turn hook");
    }
}
