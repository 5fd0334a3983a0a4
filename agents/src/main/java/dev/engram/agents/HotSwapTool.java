package dev.engram.agents;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.ToolOutput;
import dev.engram.memory.Scope;
import dev.engram.tools.ToolScopes;
import java.util.Optional;

/**
 * {@code trigger_hot_swap}: the agent swaps its context on demand, as the runtime does near the limit: the older part of
 * the session's context is summarised and moved to recall memory. The call cannot compact in place (its turn holds the
 * agent, and its own call and result must stay): it asks the agent ({@link Agent#requestHotSwap}) and the compaction runs
 * before the session's next model call, which the tool's memory-edit effect makes come in this turn.
 */
final class HotSwapTool implements AiTool<HotSwapTool.Input, ToolOutput> {
    static final String NAME = "trigger_hot_swap";
    private static final ToolInfo INFO = ToolInfo.of(NAME, "Swap your context now, e.g. when the task changes: the older "
            + "messages of this session are summarised and moved to recall memory (find them later with search) before "
            + "your next step; your memory blocks, todos, goals and the current message stay. Save what you need first.",
            SafetyTier.SIDE_EFFECTING);

    record Input(@JsonPropertyDescription("Why you swap now, e.g. 'switching from the report to the migration'.")
            Optional<String> reason) {
    }

    private final AgentRegistry agents;

    HotSwapTool(AgentRegistry agents) {
        this.agents = agents;
    }

    @Override
    public ToolInfo info() {
        return INFO;
    }

    @Override
    public Class<Input> inputType() {
        return Input.class;
    }

    @Override
    public ToolOutput execute(Input in, ToolContext ctx) {
        Scope scope = ToolScopes.of(ctx);
        Agent agent = agents.loaded(scope).orElseThrow(() -> new ToolException("Only a loaded agent can swap its context."));
        String session = ctx.sessionId().orElseThrow(
                () -> new ToolException("Swapping the context needs the session of the call; this call has none."));
        if (!agent.requestHotSwap(session)) {
            throw new ToolException("There is nothing to swap out yet: everything in your context belongs to the current "
                    + "message. Go on working.");
        }
        String why = in.reason().filter(r -> !r.isBlank()).map(r -> " (" + r.strip() + ")").orElse("");
        return ToolOutput.of("Context swap requested" + why + ": your older messages are summarised and moved to recall "
                + "memory before your next step.", ToolEffect.MEMORY_EDITED);
    }
}
