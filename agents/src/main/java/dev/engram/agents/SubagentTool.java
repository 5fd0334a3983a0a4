package dev.engram.agents;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.Truncation;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolOutput;
import dev.engram.memory.Scope;
import dev.engram.tools.ToolScopes;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code spawn_subagent}: creates a child agent of the same user with a task, runs it, and returns its
 * final message. The child is persisted (its definition names its parent), uses the parent's model
 * and tools under the parent's policy (allow and deny lists, approval mode), so it never has more
 * rights than its parent, and counts against the runtime's agent depth limit like a message to another agent.
 */
final class SubagentTool implements AiTool<SubagentTool.Input, ToolOutput> {
    static final String NAME = "spawn_subagent";

    record Input(@JsonPropertyDescription("The task, complete enough to do without asking back.") String task,
            @JsonPropertyDescription("A short name for the subagent.") Optional<String> name,
            @JsonPropertyDescription("Extra instructions for the subagent, e.g. its role.") Optional<String> instructions) {
    }

    private final AgentRegistry agents;
    private final ActiveTurns turns;
    private final Duration agentReplyTimeout;
    private final int maxAgentDepth;

    SubagentTool(AgentRegistry agents, ActiveTurns turns, Duration agentReplyTimeout, int maxAgentDepth) {
        this.agents = agents;
        this.turns = turns;
        this.agentReplyTimeout = agentReplyTimeout;
        this.maxAgentDepth = maxAgentDepth;
    }

    @Override
    public ToolInfo info() {
        return new ToolInfo(NAME,
            "Start a subagent with its own memory to work on a task, wait for it, and get its answer. Returns "
                + "{\"agent_id\": ..., \"reply\": ...}. Use it for self-contained research or drafting.",
            SafetyTier.SIDE_EFFECTING, agentReplyTimeout.multipliedBy(2), Truncation.KEEP_HEAD);
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    /** The subagent's answer comes back to the agent, which goes on to use it ({@link ToolEffect#AGENT_ANSWERED}). */
    @Override
    public ToolOutput execute(Input in, ToolContext ctx) {
        if (in.task().isBlank()) {
            throw new ToolException("task is empty; describe what the subagent should do.");
        }
        Scope parentScope = ToolScopes.of(ctx);
        Agent parent = agents.loaded(parentScope).orElseThrow(
                () -> new ToolException("Subagents can only be started by a loaded agent."));
        Turn turn = turns.of(parentScope).orElseThrow(
                () -> new ToolException("Subagents can only be started while answering a message."));
        if (turn.chain.size() >= maxAgentDepth) {
            throw new ToolException("This task is already " + turn.chain.size() + " agents deep ("
                    + String.join(" -> ", turn.chain) + "), the most allowed; do it yourself.");
        }
        AgentDefinition p = parent.definition();
        String childId = (p.id().length() > 60 ? p.id().substring(0, 60) : p.id()) + "-sub-"
                + java.util.UUID.randomUUID().toString().substring(0, 8);
        String prompt = "You are a subagent of agent '" + p.name() + "'. Do the task you are given and answer with "
                + "send_message; your answer goes to the agent that started you."
                + in.instructions().filter(s -> !s.isBlank()).map(s -> "\n\n" + s).orElse("");
        AgentDefinition child = AgentDefinition.builder(p.userId()).id(childId)
                .name(in.name().filter(s -> !s.isBlank()).orElse("subagent") + " (" + childId + ")")
                .systemPrompt(prompt).model(p.model()).tools(p.tools()).approvalMode(p.approvalMode())
                // A child never has more rights than its parent: the same allow and deny lists and approval rules
                // (the parent's workflow rules are about its own task, not the child's).
                .allowTools(p.allowTools().toArray(String[]::new)).denyTools(p.denyTools().toArray(String[]::new))
                .toolRules(p.toolRules().stream().filter(r -> r instanceof ToolRule.RequiresApproval).toList())
                .declaredTools(p.declaredTools()).toolAccess(p.toolAccess())
                .contextWindowTokens(p.contextWindowTokens()).maxSteps(p.maxSteps()).parentAgentId(p.id()).build();
        Agent agent = agents.create(child);
        AgentResponse response = agent.receiveFromAgent(turn, p.id(), in.task());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("agent_id", childId);
        out.put("reply", response.reply().orElse("(The subagent did not answer; it stopped: "
                + response.stopReason().name().toLowerCase(java.util.Locale.ROOT) + ".)"));
        return ToolOutput.of(out, ToolEffect.AGENT_ANSWERED);
    }
}
