package dev.engram.tools;

import dev.engram.framework.ToolContext;
import dev.engram.memory.Scope;

/** Where the framework's call context meets the memory's scopes. */
public final class ToolScopes {
    private ToolScopes() {
    }

    /**
     * The memory scope of the call: its user and agent.
     *
     * @throws dev.engram.framework.ToolException if the context has no user or no agent (the pipeline
     *                                            turns it into an error result for the model)
     */
    public static Scope of(ToolContext context) {
        return Scope.of(context.requireUserId(), context.requireAgentId());
    }
}
