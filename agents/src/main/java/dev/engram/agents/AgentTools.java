package dev.engram.agents;

import dev.engram.framework.ToolDefinition;
import dev.engram.framework.ToolExecutor;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * An agent's tools as one value, swapped whole when they change while the agent lives: the tool step
 * that runs calls, the definitions the model is offered (each with {@code request_heartbeat}), their
 * names, what they cost in prompt tokens, and whether a call may stop to ask for approval.
 */
record AgentTools(ToolStep step, List<ToolDefinition> offered, Set<String> names, int tokens, boolean mayAskForApproval) {
    static AgentTools of(AgentDefinition definition, AgentSettings settings, ToolExecutor executor, PromptTokens counter) {
        List<ToolDefinition> offered = executor.registry().definitions().stream()
                .filter(d -> executor.policy().permits(d.name()))
                .map(Heartbeats::withHeartbeat).toList();
        Set<String> names = new LinkedHashSet<>();
        int tokens = 0;
        for (ToolDefinition d : offered) {
            names.add(d.name());
            tokens += counter.count(d.name()) + counter.count(d.description()) + counter.count(d.parameters().toString()) + 8;
        }
        return new AgentTools(new ToolStep(definition, settings, executor), offered, Set.copyOf(names), tokens,
                executor.mayAskForApproval());
    }
}
