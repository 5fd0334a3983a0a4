package dev.engram.tools;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.ApprovalDecision;
import dev.engram.framework.ApprovalMode;
import dev.engram.framework.ApprovalRule;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import dev.engram.framework.Truncation;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * Code mode: a program calls the agent's tools through stubs, each call through the same pipeline as a direct call
 * (validation, policy, approval), and {@code run_code} runs a program alone, with Letta's answer.
 */
class CodeModeTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    record AddInput(@JsonPropertyDescription("The first number.") int a, @JsonPropertyDescription("The second.") int b) {
    }

    record NoteInput(@JsonPropertyDescription("The text to keep.") String content) {
    }

    /** {@code add}: read-only, returns {"sum": a + b}. */
    static final class Add implements AiTool<AddInput, Map<String, Object>> {
        @Override
        public ToolInfo info() {
            return new ToolInfo("add", "Add two numbers. Returns {sum}.", SafetyTier.READ_ONLY, Duration.ofSeconds(5), Truncation.KEEP_HEAD);
        }

        @Override
        public Class<AddInput> inputType() {
            return AddInput.class;
        }

        @Override
        public Map<String, Object> execute(AddInput in, ToolContext ctx) {
            return Map.of("sum", in.a() + in.b());
        }
    }

    /** {@code note} (or another name): keeps its text in {@code kept}. */
    record Note(String name, List<String> kept) implements AiTool<NoteInput, String> {
        @Override
        public ToolInfo info() {
            return new ToolInfo(name, "Keep a note.", SafetyTier.SIDE_EFFECTING, Duration.ofSeconds(5), Truncation.KEEP_HEAD);
        }

        @Override
        public Class<NoteInput> inputType() {
            return NoteInput.class;
        }

        @Override
        public String execute(NoteInput in, ToolContext ctx) {
            kept.add(in.content());
            return "kept";
        }
    }

    /** What the pipeline saw: every call a program made, with its result. */
    private final List<ToolResult> seen = new CopyOnWriteArrayList<>();
    private final List<String> notes = new CopyOnWriteArrayList<>();
    private final List<String> wiped = new CopyOnWriteArrayList<>();

    /**
     * An executor over {@code add}, {@code note}, {@code wipe} (which always asks, and the user says no) and
     * {@code execute_code} whose stubs call through that same executor.
     */
    private ToolExecutor executor(CodeRunner runner) {
        AtomicReference<ToolExecutor> self = new AtomicReference<>();
        ToolRegistry registry = ToolRegistry.create().register(new Add()).register(new Note("note", notes))
                .register(new Note("wipe", wiped));
        ProgramTools direct = new ProgramTools() {
            @Override
            public List<dev.engram.framework.ToolDefinition> definitions() {
                return ProgramTools.of(self.get()).definitions();
            }

            @Override
            public ToolResult call(ToolCall call, ToolContext context) {
                ToolResult r = self.get().execute(call, context);
                seen.add(r);
                return r;
            }
        };
        registry.register(BuiltinTools.executeCode(runner, ctx -> direct)).register(BuiltinTools.runCode(runner));
        ToolExecutor executor = ToolExecutor.builder(registry).approvalMode(ApprovalMode.AUTO)
                .approvalRule(ApprovalRule.autoApprove("note")).approvalRule(ApprovalRule.autoApprove("execute_code"))
                .approvalRule(ApprovalRule.autoApprove("run_code")).approvalRule(ApprovalRule.alwaysAsk("wipe")).build();
        self.set(executor);
        return executor;
    }

    private static ToolContext denyingApprovals() {
        return ToolContext.builder().callId("call_prog1").approvalHandler(
                q -> CompletableFuture.completedFuture(ApprovalDecision.deny("not today"))).build();
    }

    @ParameterizedTest
    @EnumSource(CodeLanguage.class)
    void aProgramCallsThreeToolsInOneCallEachThroughThePipelineAndARefusalIsAnError(CodeLanguage language) throws Exception {
        ToolExecutor executor = executor(CodeRunnerTest.runner(Duration.ofSeconds(30), language));
        String code = language == CodeLanguage.PYTHON ? """
                total = add(a=20, b=22)["sum"]
                print("sum", total)
                print(note(content="the sum is %d" % total))
                try:
                    wipe(content="everything")
                    print("wiped")
                except ToolError as e:
                    print("refused:", e)
                try:
                    add(a="x", b=1)
                except ToolError as e:
                    print("invalid:", e)
                """ : """
                const total = (await add({a: 20, b: 22})).sum;
                console.log('sum', total);
                console.log(await note({content: `the sum is ${total}`}));
                try { await wipe({content: 'everything'}); console.log('wiped'); }
                catch (e) { console.log('refused:', e.name, e.message); }
                try { await add({a: 'x', b: 1}); } catch (e) { console.log('invalid:', e.message); }
                """;
        ToolResult r = executor.execute(new ToolCall("call_prog1", "execute_code",
                JSON.writeValueAsString(Map.of("language", language.names().getFirst(), "code", code))), denyingApprovals());

        assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(r.content()).contains("sum 42").contains("kept").doesNotContain("wiped")
                .contains("refused:").contains("not approved").contains("invalid:").contains("arguments invalid");
        assertThat(seen).extracting(ToolResult::toolName).containsExactly("add", "note", "wipe", "add");
        assertThat(seen).extracting(ToolResult::status).containsExactly(ToolStatus.SUCCESS, ToolStatus.SUCCESS,
                ToolStatus.APPROVAL_DENIED, ToolStatus.INVALID_ARGUMENTS);
        assertThat(seen).extracting(ToolResult::callId).containsExactly("code1_call_prog1", "code2_call_prog1",
                "code3_call_prog1", "code4_call_prog1");
        assertThat(notes).containsExactly("the sum is 42");
        assertThat(wiped).isEmpty();
    }

    @Test
    void theDescriptionShowsTheStubsButNeverTheCodeToolsThemselves() {
        CodeRunner runner = CodeRunnerTest.runner(Duration.ofSeconds(5), CodeLanguage.PYTHON, CodeLanguage.JAVASCRIPT);
        ToolExecutor inner = ToolExecutor.builder(ToolRegistry.create().register(new Add()).register(new Note("note", notes))
                .register(BuiltinTools.runCode(runner))).build();
        DynamicTool tool = BuiltinTools.executeCode(runner, ProgramTools.of(inner));
        assertThat(tool.description())
                .contains("def add(*, a: int, b: int)  # Add two numbers.")
                .contains("def note(*, content: str)  # Keep a note.")
                .contains("async function add({a: number, b: number})")
                .doesNotContain("def run_code").doesNotContain("def execute_code");
        assertThat(ProgramTools.of(inner).definitions()).extracting(d -> d.name()).containsExactly("add", "note");
    }

    @Test
    void badInputIsAClearErrorAndNothingRuns() throws Exception {
        ToolExecutor executor = executor(CodeRunnerTest.runner(Duration.ofSeconds(10), CodeLanguage.PYTHON));
        ToolResult ruby = executor.execute(ToolCall.of("execute_code", "{\"language\": \"ruby\", \"code\": \"puts 1\"}"),
                denyingApprovals());
        assertThat(ruby.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(ruby.content()).contains("language 'ruby' cannot run here; use python or javascript");
        ToolResult empty = executor.execute(ToolCall.of("execute_code", "{\"language\": \"python\", \"code\": \"  \"}"),
                denyingApprovals());
        assertThat(empty.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(empty.content()).contains("code is empty");
        ToolResult ts = executor.execute(ToolCall.of("run_code", "{\"language\": \"ts\", \"code\": \"1\"}"), denyingApprovals());
        assertThat(ts.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(ts.content()).contains("language 'ts' cannot run here");
        ToolResult missing = executor.execute(ToolCall.of("run_code", "{\"code\": \"print(1)\"}"), denyingApprovals());
        assertThat(missing.status()).isEqualTo(ToolStatus.INVALID_ARGUMENTS);
        assertThat(seen).isEmpty();
        assertThat(notes).isEmpty();
    }

    @Test
    void aFailingProgramIsAnErrorResultWithTheEndOfItsOutput() throws Exception {
        ToolExecutor executor = executor(CodeRunnerTest.runner(Duration.ofSeconds(10), CodeLanguage.PYTHON));
        ToolResult r = executor.execute(ToolCall.of("execute_code", JSON.writeValueAsString(Map.of("language", "python",
                "code", "print('before')\nnote(content='one')\nraise ValueError('bad value')"))), denyingApprovals());
        assertThat(r.status()).isEqualTo(ToolStatus.TOOL_ERROR);
        assertThat(r.content()).contains("failed with exit code 1").contains("1 tool call ran").contains("before")
                .contains("ValueError: bad value").contains("program.py\", line 3").doesNotContain("driver.py");
        assertThat(notes).containsExactly("one");
    }

    @Test
    void runCodeAnswersAsLettaDoes() throws Exception {
        ToolExecutor executor = executor(CodeRunnerTest.runner(Duration.ofSeconds(10), CodeLanguage.JAVASCRIPT));
        ToolResult r = executor.execute(ToolCall.of("run_code", "{\"code\": \"console.log(1 + 1); console.error('warn')\", "
                + "\"language\": \"js\"}"), denyingApprovals());
        assertThat(r.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(JSON.readTree(r.content())).isEqualTo(JSON.readTree(
                "{\"results\": [], \"logs\": {\"stdout\": [\"2\\n\"], \"stderr\": [\"warn\\n\"]}}"));
        ToolResult failed = executor.execute(ToolCall.of("run_code", "{\"code\": \"throw new Error('boom')\", "
                + "\"language\": \"js\"}"), denyingApprovals());
        assertThat(JSON.readTree(failed.content()).path("error").asString()).contains("exit code 1");
        assertThat(JSON.readTree(failed.content()).path("logs").path("stderr").get(0).asString()).contains("Error: boom");
    }
}
