package dev.engram.agents;

import java.util.Objects;
import java.util.Optional;

/**
 * Your code at the start and the end of every turn an agent of the runtime takes for a message ({@code Agent.send},
 * {@code Agent.stream}, a scheduled message): to log, meter or audit turns. Register it with
 * {@link AgentRuntime.Builder#turnHook}; hooks run in the order added, on the turn's thread, while the turn holds its
 * agent (no other turn of the agent runs in between). Their time counts in the turn's.
 *
 * <p>A hook that throws is logged and skipped: the turn goes on, and so do the other hooks. To act on tool calls
 * (deny one, rewrite its arguments or its result) use a {@link dev.engram.framework.ToolHook}
 * ({@link AgentRuntime.Builder#toolHook}).
 */
public interface TurnHook {

    /** Before the agent takes the message (nothing of the turn is stored yet). */
    default void turnStarted(Started turn) {
    }

    /** After the turn: with its response, or without one when it failed (the model failed, the runtime closed). */
    default void turnEnded(Ended turn) {
    }

    /**
     * A turn that starts.
     *
     * @param message the user's message (empty for a message of images only)
     */
    record Started(String userId, String agentId, String sessionId, String message) {
        public Started {
            Objects.requireNonNull(userId, "userId");
            Objects.requireNonNull(agentId, "agentId");
            Objects.requireNonNull(sessionId, "sessionId");
            Objects.requireNonNull(message, "message");
        }
    }

    /**
     * A turn that ended.
     *
     * @param response what the turn answered; empty when it failed
     */
    record Ended(String userId, String agentId, String sessionId, Optional<AgentResponse> response) {
        public Ended {
            Objects.requireNonNull(userId, "userId");
            Objects.requireNonNull(agentId, "agentId");
            Objects.requireNonNull(sessionId, "sessionId");
            Objects.requireNonNull(response, "response");
        }
    }
}
