package dev.engram.agents;

import dev.engram.framework.ToolException;
import dev.engram.memory.Scope;
import dev.engram.tools.MessageRouter;
import dev.engram.tools.OutgoingMessage;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The runtime's {@link MessageRouter}. A message to the user is only announced here: the sender's own
 * loop takes it from its {@code send_message} call as the reply of its turn (whoever sent the message
 * the agent is answering gets it: the caller of {@link Agent#send}, or the agent that wrote to it). A
 * message to another agent of the same user runs that agent's turn and waits for its reply, which the
 * sender reads in the tool result; chains are limited in depth and an agent already waiting in the
 * chain cannot be written to (it would wait for itself).
 */
final class AgentRouter implements MessageRouter {
    private final AgentRegistry agents;
    private final ActiveTurns turns;
    private final Consumer<AgentEvent> events;
    private final int maxAgentDepth;

    AgentRouter(AgentRegistry agents, ActiveTurns turns, Consumer<AgentEvent> events, int maxAgentDepth) {
        this.agents = agents;
        this.turns = turns;
        this.events = events;
        this.maxAgentDepth = maxAgentDepth;
    }

    @Override
    public Optional<String> deliver(OutgoingMessage message) {
        Scope from = Scope.of(message.userId(), message.fromAgentId());
        Optional<Turn> turn = turns.of(from);
        if (message.toAgentId().isEmpty()) {
            events.accept(new AgentEvent.MessageSent(from, Optional.empty(), message.text()));
            return Optional.empty();
        }
        String to = message.toAgentId().get();
        if (to.equals(message.fromAgentId())) {
            throw new ToolException("You cannot send a message to yourself; leave out target_agent_id to answer the user.");
        }
        if (turn.isEmpty()) {
            throw new ToolException("Messages to other agents can only be sent while answering a message.");
        }
        Turn t = turn.get();
        if (t.chain.contains(to)) {
            throw new ToolException("Agent '" + to + "' is waiting for your answer in this conversation; reply to it with "
                    + "send_message without target_agent_id.");
        }
        Agent target;
        try {
            target = agents.agent(message.userId(), to);
        } catch (AgentNotFoundException e) {
            throw new ToolException("There is no agent '" + to + "' for this user. Agents you can write to: "
                    + agents.agentIds(message.userId()).stream().filter(id -> !id.equals(message.fromAgentId())).toList() + ".");
        }
        if (t.chain.size() >= maxAgentDepth) {
            throw new ToolException("This message is already " + t.chain.size() + " agents deep (" + String.join(" -> ", t.chain)
                    + "), the most allowed; answer with what you know instead of asking another agent.");
        }
        events.accept(new AgentEvent.MessageSent(from, Optional.of(to), message.text()));
        AgentResponse response = target.receiveFromAgent(t, message.fromAgentId(), message.text());
        return Optional.of(response.reply().orElse("(Agent '" + to + "' did not reply; it stopped: "
                + response.stopReason().name().toLowerCase(java.util.Locale.ROOT) + ".)"));
    }
}
