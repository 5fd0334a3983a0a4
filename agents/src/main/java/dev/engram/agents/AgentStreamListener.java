package dev.engram.agents;

/**
 * Receives an agent's {@link AgentStreamEvent}s, on the thread that runs the agent, in order. Keep it
 * quick: the agent waits for it. A listener that throws cancels the turn (as {@code Agent.cancel()}
 * does) and receives no further events; the exception is logged, and the history stays consistent.
 */
@FunctionalInterface
public interface AgentStreamListener {
    void onEvent(AgentStreamEvent event);
}
