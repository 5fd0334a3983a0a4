package dev.engram.agents;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolEffect;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.framework.ToolOutput;
import dev.engram.framework.Truncation;
import dev.engram.memory.Scope;
import dev.engram.tools.MessageRouter;
import dev.engram.tools.OutgoingMessage;
import dev.engram.tools.ToolScopes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Letta's multi-agent tools ({@code letta_multi_agent_core}), with Letta's names and arguments, over the runtime's
 * {@link AgentRouter}: {@code send_message_to_agent_and_wait_for_reply}, {@code send_message_to_agents_matching_tags}
 * and {@code send_message_to_agent_async}. Each reaches only the sending agent's own user's agents (another user's
 * agent id is "no such agent"), and the router's limits hold: no message to oneself, to an agent already waiting in the
 * chain, or deeper than the runtime's agent depth.
 */
final class MultiAgentTools {
    static final String WAIT_FOR_REPLY = "send_message_to_agent_and_wait_for_reply";
    static final String MATCHING_TAGS = "send_message_to_agents_matching_tags";
    static final String ASYNC = "send_message_to_agent_async";
    /** The most agents one message by tags reaches. */
    static final int MAX_TAGGED = 20;
    private static final Logger LOG = LoggerFactory.getLogger(MultiAgentTools.class);

    private MultiAgentTools() {
    }

    /** The three tools, over {@code router} and the registry of the runtime's agents. */
    static List<DynamicTool> all(MessageRouter router, AgentRegistry agents, Duration agentReplyTimeout) {
        ExecutorService async = Executors.newVirtualThreadPerTaskExecutor();
        return List.of(DynamicTool.deferred(new WaitForReply(router, agentReplyTimeout)),
                DynamicTool.deferred(new MatchingTags(router, agents, agentReplyTimeout)),
                DynamicTool.deferred(new Async(agents, async)));
    }

    /** The reply of one agent, as Letta shows it: {@code {"agent_id": ..., "response": [...]}}. */
    private static Map<String, Object> reply(String agentId, List<String> response) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("agent_id", agentId);
        out.put("response", response);
        return out;
    }

    private static String checkMessage(String message) {
        if (message == null || message.isBlank()) {
            throw new ToolException("message is empty; write what the other agent should read.");
        }
        return message;
    }

    private static String checkTarget(String otherAgentId, Scope from) {
        if (otherAgentId == null || otherAgentId.isBlank()) {
            throw new ToolException("other_agent_id is empty; give the id of the agent to write to.");
        }
        if (otherAgentId.equals(from.agentId())) {
            throw new ToolException("other_agent_id is your own id; you cannot send a message to yourself.");
        }
        return otherAgentId;
    }

    /** {@code send_message_to_agent_and_wait_for_reply}. */
    static final class WaitForReply implements AiTool<WaitForReply.Input, ToolOutput> {
        record Input(@JsonPropertyDescription("The content of the message to be sent to the target agent.") String message,
                @JsonPropertyDescription("The unique identifier of the target agent.") String other_agent_id) {
        }

        private final MessageRouter router;
        private final Duration timeout;

        WaitForReply(MessageRouter router, Duration timeout) {
            this.router = router;
            this.timeout = timeout;
        }

        @Override
        public ToolInfo info() {
            return new ToolInfo(WAIT_FOR_REPLY, "Sends a message to another agent of your user and waits for its reply. "
                    + "Your identity is included, so no introduction is needed. Returns {\"agent_id\": ..., \"response\": [...]}.",
                    SafetyTier.SIDE_EFFECTING, timeout.multipliedBy(2), Truncation.KEEP_HEAD);
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public ToolOutput execute(Input in, ToolContext ctx) {
            Scope from = ToolScopes.of(ctx);
            String to = checkTarget(in.other_agent_id(), from);
            Optional<String> answer = router.deliver(new OutgoingMessage(from.userId(), from.agentId(),
                    ctx.sessionId().orElse("default"), Optional.of(to), checkMessage(in.message())));
            return ToolOutput.of(reply(to, List.of(answer.orElse("<no response>"))), ToolEffect.AGENT_ANSWERED);
        }
    }

    /** {@code send_message_to_agents_matching_tags}. */
    static final class MatchingTags implements AiTool<MatchingTags.Input, ToolOutput> {
        record Input(@JsonPropertyDescription("The content of the message to be sent to each matching agent.") String message,
                @JsonPropertyDescription("Tags an agent must all have to receive the message.") List<String> match_all,
                @JsonPropertyDescription("Tags of which an agent must have at least one to receive the message (empty: "
                        + "no such condition).") List<String> match_some) {
        }

        private final MessageRouter router;
        private final AgentRegistry agents;
        private final Duration timeout;

        MatchingTags(MessageRouter router, AgentRegistry agents, Duration timeout) {
            this.router = router;
            this.agents = agents;
            this.timeout = timeout;
        }

        @Override
        public ToolInfo info() {
            return new ToolInfo(MATCHING_TAGS, "Sends a message to every other agent of your user that has all the tags in "
                    + "match_all and at least one of match_some, one after the other, and waits for each reply. Returns a list "
                    + "of {\"agent_id\": ..., \"response\": [...]}, one per agent.", SafetyTier.SIDE_EFFECTING,
                    timeout.multipliedBy(2L * MAX_TAGGED), Truncation.KEEP_HEAD);
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public ToolOutput execute(Input in, ToolContext ctx) {
            Scope from = ToolScopes.of(ctx);
            String message = checkMessage(in.message());
            List<String> all = in.match_all() == null ? List.of() : in.match_all();
            List<String> some = in.match_some() == null ? List.of() : in.match_some();
            if (all.isEmpty() && some.isEmpty()) {
                throw new ToolException("match_all and match_some are both empty; give at least one tag, or write to one "
                        + "agent with " + WAIT_FOR_REPLY + ".");
            }
            List<String> targets = new ArrayList<>();
            for (AgentDefinition d : agents.definitions(from.userId())) {
                List<String> tags = d.tags();
                if (!d.id().equals(from.agentId()) && tags.containsAll(all)
                        && (some.isEmpty() || some.stream().anyMatch(tags::contains))) {
                    targets.add(d.id());
                }
            }
            if (targets.size() > MAX_TAGGED) {
                throw new ToolException(targets.size() + " agents match these tags; a message reaches at most " + MAX_TAGGED
                        + ". Narrow the tags.");
            }
            List<Map<String, Object>> out = new ArrayList<>();
            for (String to : targets) {
                String response;
                try {
                    response = router.deliver(new OutgoingMessage(from.userId(), from.agentId(),
                            ctx.sessionId().orElse("default"), Optional.of(to), message)).orElse("<no response>");
                } catch (ToolException e) {
                    response = "<error: " + e.getMessage() + ">";
                }
                out.add(reply(to, List.of(response)));
            }
            return ToolOutput.of(out, ToolEffect.AGENT_ANSWERED);
        }
    }

    /** {@code send_message_to_agent_async}: the target's turn runs on a thread of its own; its reply goes nowhere. */
    static final class Async implements AiTool<Async.Input, String> {
        record Input(@JsonPropertyDescription("The content of the message to be sent to the target agent.") String message,
                @JsonPropertyDescription("The unique identifier of the target agent.") String other_agent_id) {
        }

        private final AgentRegistry agents;
        private final ExecutorService threads;

        Async(AgentRegistry agents, ExecutorService threads) {
            this.agents = agents;
            this.threads = threads;
        }

        @Override
        public ToolInfo info() {
            return ToolInfo.of(ASYNC, "Sends a message to another agent of your user without waiting for a reply: a "
                    + "one-way notification. Returns a confirmation once the message is on its way.", SafetyTier.SIDE_EFFECTING);
        }

        @Override
        public Class<Input> inputType() {
            return Input.class;
        }

        @Override
        public String execute(Input in, ToolContext ctx) {
            Scope from = ToolScopes.of(ctx);
            String to = checkTarget(in.other_agent_id(), from);
            String message = checkMessage(in.message());
            Agent target;
            try {
                target = agents.agent(from.userId(), to);
            } catch (AgentNotFoundException e) {
                throw new ToolException("There is no agent '" + to + "' for this user. Agents you can write to: "
                        + agents.agentIds(from.userId()).stream().filter(id -> !id.equals(from.agentId())).toList() + ".");
            }
            String session = ctx.sessionId().orElse("default");
            String text = "[This is a one-way notification; if you need to respond, use an agent-to-agent messaging tool] "
                    + message;
            threads.execute(() -> {
                try {
                    target.receiveFromAgent(new Turn(session, List.of(from.agentId()), Optional.empty(), List.of(), null),
                            from.agentId(), text);
                } catch (RuntimeException e) {
                    LOG.warn("The one-way message of agent {} to agent {} was not delivered: {}", from, to, e.getMessage());
                }
            });
            return "Successfully sent message";
        }
    }
}
