package dev.engram.agents;

import static dev.engram.agents.AgentFixture.script;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ScriptedChatModel;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Scope;
import dev.engram.memory.ToolOutcome;
import dev.engram.tools.CodeRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * Code mode in an agent's turn: one {@code execute_code} call whose program calls three of the agent's tools, each
 * through the agent's pipeline (an approval refusal reaches the program as an error) and each recorded in the
 * conversation, so that recall memory and the next prompt show it.
 */
class CodeModeAgentTest {
    private static final Scope ANA = Scope.of("ana", "coder");
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private AgentFixture fx;
    private final List<String> wiped = new CopyOnWriteArrayList<>();

    record Wipe(String what) {
    }

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    private static CodeRunner runner() {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/bwrap")), "skipped: bwrap is not installed (apt-get install bubblewrap util-linux)");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "skipped: python3 is not installed (apt-get install python3)");
        return CodeRunner.sandboxed(Duration.ofSeconds(30), CodeRunner.defaultLimits(), 1024 * 1024);
    }

    private Agent agent(ScriptedChatModel model, String... tools) {
        fx = new AgentFixture(dir).open(b -> b.model("script:coder", model).code(runner()).tool(AiTool.of("wipe",
                "Wipe something; asks first.", Wipe.class, SafetyTier.PRIVILEGED, (in, ctx) -> {
                    wiped.add(in.what());
                    return "wiped";
                })));
        return fx.runtime.create(AgentDefinition.builder("ana").id("coder").model("script:coder").addTools(tools).build());
    }

    @Test
    void aProgramCallsThreeToolsInOneTurnEachThroughThePipelineAndRecorded() throws Exception {
        String program = """
                saved = memory_save(content="Ana's project is called Heron")
                print("saved", saved["note_id"][:5])
                archival_memory_insert(content="Heron ships in June")
                try:
                    wipe(what="everything")
                    print("wiped")
                except ToolError as e:
                    print("refused:", e)
                """;
        ScriptedChatModel model = script("""
                {"turns": [
                  {"tool_calls": [{"id": "call_prog", "name": "execute_code", "arguments": %s}]},
                  {"tool_calls": [{"name": "send_message", "arguments": {"message": "Done."}}]}
                ]}""".formatted(JSON.writeValueAsString(java.util.Map.of("language", "python", "code", program,
                "request_heartbeat", true))));
        Agent agent = agent(model, "send_message", "memory_save", "archival_memory_insert", "wipe", "execute_code");

        AgentResponse r = agent.send("Remember the project.");

        assertThat(r.reply()).contains("Done.");
        assertThat(r.toolResults().getFirst().status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.toolResults().getFirst().content()).contains("saved note-").contains("refused:")
                .contains("needs approval").doesNotContain("wiped");
        assertThat(fx.store.notes().list("ana", 0, 10)).extracting(n -> n.content()).containsExactly("Ana's project is called Heron");
        assertThat(wiped).isEmpty();

        // Recorded: after execute_code's result, each call of the program with its result, in the order made.
        List<ConversationMessage> stored = fx.messages(ANA);
        assertThat(stored).extracting(ConversationMessage::role).containsExactly(MessageRole.USER, MessageRole.ASSISTANT,
                MessageRole.TOOL, MessageRole.ASSISTANT, MessageRole.TOOL, MessageRole.ASSISTANT, MessageRole.TOOL,
                MessageRole.ASSISTANT, MessageRole.TOOL, MessageRole.ASSISTANT, MessageRole.TOOL);
        assertThat(stored.subList(3, 9).stream().filter(m -> m.role() == MessageRole.ASSISTANT)
                .map(m -> m.toolCalls().getFirst().name()).toList())
                .containsExactly("memory_save", "archival_memory_insert", "wipe");
        assertThat(stored.get(3).toolCalls().getFirst().id()).isEqualTo("code1_call_prog");
        assertThat(stored.get(4).toolCallId()).contains("code1_call_prog");
        assertThat(stored.get(8).toolOutcome().map(ToolOutcome::status)).contains(ToolOutcome.Status.DENIED);

        // The next prompt shows them, each call followed by its result.
        List<ChatMessage> prompt = model.requests().get(1).messages();
        List<String> called = prompt.stream().filter(m -> m instanceof ChatMessage.Assistant)
                .flatMap(m -> ((ChatMessage.Assistant) m).toolCalls().stream()).map(c -> c.name()).toList();
        assertThat(called).containsExactly("execute_code", "memory_save", "archival_memory_insert", "wipe");
        assertThat(prompt.stream().filter(m -> m instanceof ChatMessage.ToolResult).map(m -> ((ChatMessage.ToolResult) m).toolCallId()))
                .containsExactly("call_prog", "code1_call_prog", "code2_call_prog", "code3_call_prog");
    }

    @Test
    void theAgentsExecuteCodeListsItsOwnToolsAsStubsAndNotItself() {
        Agent agent = agent(script("{\"turns\": []}"), "send_message", "memory_save", "execute_code", "run_code");
        String description = agent.executor().registry().find("execute_code").orElseThrow().description();
        assertThat(description).contains("def memory_save(*, content: str, metadata: str = _UNSET)").contains("def send_message(")
                .doesNotContain("def execute_code").doesNotContain("def run_code").doesNotContain("def archival_memory_insert");
    }

    @Test
    void withoutCodeTheRuntimeHasNoCodeToolsAndAnAgentNamingOneIsRefused(@TempDir Path other) {
        fx = new AgentFixture(other).open(b -> b.model("script:coder", script("{\"turns\": []}")));
        assertThat(fx.runtime.toolRegistry().names()).doesNotContain("execute_code", "run_code");
        assertThatThrownBy(() -> fx.runtime.create(AgentDefinition.builder("ana").id("coder").model("script:coder")
                .addTools("run_code").build())).isInstanceOf(AgentException.class).hasMessageContaining("names run_code, but code execution is off")
                .hasMessageContaining("--code");
        assertThat(fx.store.agents().get(ANA)).isEmpty();
    }

    @Test
    void anAgentWithCodeToolsLoadsWithoutThemOnARuntimeWithoutCode() {
        agent(script("{\"turns\": []}"), "send_message", "execute_code", "run_code");
        assertThat(fx.runtime.agent("ana", "coder").executor().registry().names()).contains("execute_code", "run_code");
        fx.close();
        fx = new AgentFixture(dir).open(b -> b.model("script:coder", script("{\"turns\": []}")));
        Agent reloaded = fx.runtime.agent("ana", "coder");
        assertThat(reloaded.executor().registry().names()).contains("send_message").doesNotContain("execute_code", "run_code");
        assertThat(reloaded.definition().tools()).contains("execute_code", "run_code");
    }
}
