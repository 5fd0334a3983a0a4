package dev.engram.agents;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolPolicy;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.memory.Scope;
import dev.engram.tools.BuiltinTools;
import dev.engram.tools.CodeRunner;
import dev.engram.tools.ProgramTools;
import dev.engram.tools.ToolScopes;
import java.util.List;
import java.util.function.Supplier;

/**
 * Code mode in an agent runtime: {@code execute_code}'s stubs are the agent's own tools (those its policy permits, the
 * code tools aside), each call runs through the agent's own {@link ToolExecutor} (validation, policy, approval,
 * timeout, truncation) with the program's call context, and each is recorded in the conversation as a call of the
 * program: the turn collects them, and the tool step stores them, after the step's own results, as an assistant
 * message with that call and its result (so recall memory and the next prompt show them).
 */
final class CodeMode {
    static final String EXECUTE_CODE = "execute_code";
    static final String RUN_CODE = "run_code";

    private CodeMode() {
    }

    /**
     * The agent's own {@code execute_code}: its description lists a stub for each of {@code registry}'s tools the agent
     * may call ({@code definitions}), and its calls go to the agent's executor once built.
     */
    static DynamicTool forAgent(CodeRunner runner, List<ToolDefinition> definitions, Supplier<ToolExecutor> executor,
            ActiveTurns turns, Scope agent) {
        return BuiltinTools.executeCode(runner, recorded(definitions, executor, turns, agent));
    }

    /**
     * The runtime's {@code execute_code} for hosts that call tools directly ({@code engram tools call}): the calling
     * agent's tools, through its executor.
     */
    static DynamicTool forCatalog(CodeRunner runner, AgentRegistry agents, ActiveTurns turns) {
        return BuiltinTools.executeCode(runner, ctx -> {
            Scope scope = ToolScopes.of(ctx);
            Agent agent;
            try {
                agent = agents.agent(scope.userId(), scope.agentId());
            } catch (AgentNotFoundException e) {
                throw new ToolException("execute_code runs the tools of an agent, and agent '" + scope.agentId()
                        + "' does not exist.");
            }
            ToolExecutor executor = agent.executor();
            return recorded(ProgramTools.of(executor).definitions(), () -> executor, turns, agent.scope());
        });
    }

    /** The {@code registry}'s tools {@code executor}'s policy permits, the code tools aside. */
    static List<ToolDefinition> stubs(ToolRegistry registry, ToolPolicy policy) {
        return registry.definitions().stream()
                .filter(d -> policy.permits(d.name()) && !ProgramTools.CODE_TOOLS.contains(d.name())).toList();
    }

    private static ProgramTools recorded(List<ToolDefinition> definitions, Supplier<ToolExecutor> executor, ActiveTurns turns,
            Scope agent) {
        return new ProgramTools() {
            @Override
            public List<ToolDefinition> definitions() {
                return definitions;
            }

            @Override
            public ToolResult call(ToolCall call, ToolContext context) {
                ToolResult result = executor.get().execute(call, context);
                turns.of(agent).ifPresent(turn -> turn.programCall(call, result));
                return result;
            }
        };
    }
}
