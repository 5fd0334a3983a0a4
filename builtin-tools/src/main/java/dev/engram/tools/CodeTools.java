package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.Truncation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The two tools of the {@link CodeRunner}: Letta's {@code run_code} (a program alone, with Letta's arguments and
 * answer) and code mode's {@code execute_code} (a program that calls the agent's tools through stubs).
 */
final class CodeTools {
    static final String RUN_CODE = "run_code";
    static final String EXECUTE_CODE = "execute_code";

    private CodeTools() {
    }

    /** Finds the tools a program may call from its call's context. */
    @FunctionalInterface
    interface ToolsOfCall {
        ProgramTools of(ToolContext context);
    }

    /** Letta's arguments, in Letta's order. */
    record RunInput(@JsonPropertyDescription("The program to run.") String code,
            @JsonPropertyDescription("python or js (javascript).") String language) {
    }

    /** {@code run_code}: Letta's answer, {@code {"results": [], "logs": {"stdout": [...], "stderr": [...]}, "error": ...}}. */
    static final class RunCode implements AiTool<RunInput, Map<String, Object>> {
        private final CodeRunner runner;

        RunCode(CodeRunner runner) {
            this.runner = runner;
        }

        @Override
        public ToolInfo info() {
            return new ToolInfo(RUN_CODE, "Run a Python 3 or JavaScript (Node.js) program in a sandbox with no network and "
                    + "no access to the host, and get what it printed. Print what you want to see. The program has "
                    + runner.timeout().toSeconds() + " s; scratch files go in /tmp. Returns {results, logs: {stdout, stderr}, "
                    + "error}.", SafetyTier.SIDE_EFFECTING, runner.timeout().plusSeconds(10), Truncation.KEEP_TAIL);
        }

        @Override
        public Class<RunInput> inputType() {
            return RunInput.class;
        }

        @Override
        public Map<String, Object> execute(RunInput in, ToolContext ctx) throws Exception {
            CodeLanguage language = CodeLanguage.parse(in.language());
            CodeRun run = runner.run(language, in.code(), ctx.progress());
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("results", List.of());
            out.put("logs", Map.of("stdout", run.stdout().isEmpty() ? List.of() : List.of(run.stdout()),
                    "stderr", run.stderr().isEmpty() ? List.of() : List.of(run.stderr())));
            failure(run, runner).ifPresent(why -> out.put("error", why));
            return out;
        }
    }

    /** Code mode's arguments. */
    record ExecuteInput(@JsonPropertyDescription("python or javascript (js).") String language,
            @JsonPropertyDescription("The program. It calls the tools listed in the description as functions and prints "
                    + "what you want to see.") String code) {
    }

    /** {@code execute_code}: the program's output; a program that failed is an error result with its output's end. */
    static final class ExecuteCode implements AiTool<ExecuteInput, String> {
        private final CodeRunner runner;
        private final Optional<List<ToolDefinition>> shown;
        private final ToolsOfCall tools;

        ExecuteCode(CodeRunner runner, Optional<List<ToolDefinition>> shown, ToolsOfCall tools) {
            this.runner = runner;
            this.shown = shown;
            this.tools = tools;
        }

        @Override
        public ToolInfo info() {
            StringBuilder d = new StringBuilder("Run a short program that calls your tools as functions, to do in one step "
                    + "what would take many tool calls. It runs in a sandbox with no network and no access to the host; its "
                    + "only way out is the tool functions, each call checked and approved as if you made it. Print what you "
                    + "want to see: you get the program's output. Python: call a tool with keyword arguments, e.g. "
                    + "memory_save(content=\"...\"), and get its parsed result; a refused or failed call raises ToolError. "
                    + "JavaScript: await the async function with one object, e.g. await memory_save({content: \"...\"}); a "
                    + "failed call rejects with ToolError. The program has " + runner.timeout().toSeconds() + " s.");
            if (shown.isPresent()) {
                List<ToolDefinition> defs = shown.get();
                if (defs.isEmpty()) {
                    d.append(" No tool functions are available.");
                } else {
                    if (runner.languages().contains(CodeLanguage.PYTHON)) {
                        d.append("\n\nPython functions:\n").append(CodeStubs.signatures(defs, CodeLanguage.PYTHON));
                    }
                    if (runner.languages().contains(CodeLanguage.JAVASCRIPT)) {
                        d.append("\n\nJavaScript functions:\n").append(CodeStubs.signatures(defs, CodeLanguage.JAVASCRIPT));
                    }
                }
            } else {
                d.append(" The functions are your other tools, with the same names and arguments.");
            }
            return new ToolInfo(EXECUTE_CODE, d.toString(), SafetyTier.SIDE_EFFECTING, runner.timeout().plusSeconds(10),
                    Truncation.KEEP_TAIL);
        }

        @Override
        public Class<ExecuteInput> inputType() {
            return ExecuteInput.class;
        }

        @Override
        public String execute(ExecuteInput in, ToolContext ctx) throws Exception {
            CodeLanguage language = CodeLanguage.parse(in.language());
            CodeRun run = runner.run(language, in.code(), tools.of(ctx), ctx);
            String output = run.stdout() + (run.stderr().isBlank() ? "" : (run.stdout().isEmpty() || run.stdout().endsWith("\n")
                    ? "" : "\n") + "--- stderr ---\n" + run.stderr());
            String calls = run.toolCalls() == 1 ? "1 tool call" : run.toolCalls() + " tool calls";
            Optional<String> failure = failure(run, runner);
            if (failure.isPresent()) {
                throw new ToolException(failure.get() + " (" + calls + " ran). Its output:\n" + output);
            }
            return output.isBlank() ? "(The program printed nothing; " + calls + " ran.)" : output;
        }
    }

    /** Why a program failed, if it did. */
    private static Optional<String> failure(CodeRun run, CodeRunner runner) {
        return switch (run.stop()) {
            case TIMED_OUT -> Optional.of("The program did not finish within " + runner.timeout().toSeconds()
                    + " s and was stopped with every process it started");
            case OUTPUT_LIMIT -> Optional.of("The program printed more than the output limit and was stopped with every "
                    + "process it started; print less");
            case EXITED -> run.exitCode().orElse(-1) == 0 ? Optional.empty()
                    : Optional.of("The program failed with exit code " + run.exitCode().orElse(-1)
                            + (run.exitCode().orElse(0) >= 128 ? " (killed by signal " + (run.exitCode().getAsInt() - 128)
                            + ": a limit of the sandbox, such as its CPU time or memory)" : ""));
        };
    }
}
