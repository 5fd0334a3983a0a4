package dev.engram.tools;

import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolResult;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The tools a code-mode program ({@code execute_code}) may call through its stubs, and where its calls go: the
 * agent's own tools, through the same {@link ToolExecutor} pipeline as the model's direct calls (validation, policy,
 * approval, timeout, truncation). An agent runtime also records each call in the conversation.
 */
public interface ProgramTools {
    /** The tools the program gets a stub for, as the model is told about them; never the code tools themselves. */
    List<ToolDefinition> definitions();

    /**
     * Runs one call the program made, with {@code context} (the {@code execute_code} call's own), and returns its
     * result; never throws.
     */
    ToolResult call(ToolCall call, ToolContext context);

    /** The names no program gets a stub for: the code tools, which would run programs inside programs. */
    Set<String> CODE_TOOLS = Set.of(CodeTools.EXECUTE_CODE, CodeTools.RUN_CODE);

    /**
     * Every tool of {@code executor}'s registry its policy permits, but the code tools, called through it.
     */
    static ProgramTools of(ToolExecutor executor) {
        Objects.requireNonNull(executor, "executor must not be null");
        List<ToolDefinition> definitions = executor.registry().definitions().stream()
                .filter(d -> executor.policy().permits(d.name()) && !CODE_TOOLS.contains(d.name())).toList();
        return new ProgramTools() {
            @Override
            public List<ToolDefinition> definitions() {
                return definitions;
            }

            @Override
            public ToolResult call(ToolCall call, ToolContext context) {
                return executor.execute(call, context);
            }
        };
    }
}
