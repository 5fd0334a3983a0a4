package dev.engram.agents;

import dev.engram.framework.DynamicTool;
import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolExecutor;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An agent's tools as one value, swapped whole when they change while the agent lives: the tool step
 * that runs calls, the definitions the model is offered (each with {@code request_heartbeat} in a heartbeat loop), their
 * names, what they cost in prompt tokens, whether a call may stop to ask for approval, and the argument each
 * tool that may message the user writes that message in ({@link DynamicTool#userMessageArgument()}).
 */
record AgentTools(ToolStep step, List<ToolDefinition> offered, Set<String> names, int tokens, boolean mayAskForApproval,
        Map<String, String> userMessageArguments) {
    static AgentTools of(AgentDefinition definition, AgentSettings settings, ToolExecutor executor, PromptTokens counter) {
        List<ToolDefinition> offered = executor.registry().definitions().stream()
                .filter(d -> executor.policy().permits(d.name()))
                .map(d -> definition.agentType().loop() == AgentType.Loop.HEARTBEATS ? Heartbeats.withHeartbeat(d) : d).toList();
        Set<String> names = new LinkedHashSet<>();
        int tokens = 0;
        for (ToolDefinition d : offered) {
            names.add(d.name());
            tokens += counter.count(d.name()) + counter.count(d.description()) + counter.count(d.parameters().toString()) + 8;
        }
        Map<String, String> messageArguments = new HashMap<>();
        for (String name : names) {
            executor.registry().find(name).flatMap(DynamicTool::userMessageArgument).ifPresent(a -> messageArguments.put(name, a));
        }
        return new AgentTools(new ToolStep(definition, settings, executor), offered, Set.copyOf(names), tokens,
                executor.mayAskForApproval(), Map.copyOf(messageArguments));
    }
}
