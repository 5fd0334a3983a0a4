package dev.engram.agents;

/**
 * Follows agents through their {@link AgentEvent}s. Called synchronously on the step's thread, so keep
 * it quick; an exception it throws is logged and does not disturb the agent.
 */
@FunctionalInterface
public interface AgentListener {
    void onEvent(AgentEvent event);
}
