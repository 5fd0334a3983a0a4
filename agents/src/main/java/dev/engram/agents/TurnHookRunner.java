package dev.engram.agents;

import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs the user's {@link TurnHook}s in order, each one's failure logged and skipped. */
final class TurnHookRunner {
    private static final Logger LOG = LoggerFactory.getLogger(TurnHookRunner.class);

    private TurnHookRunner() {
    }

    static void started(List<TurnHook> hooks, AgentDefinition agent, String session, String message) {
        if (hooks.isEmpty()) {
            return;
        }
        TurnHook.Started turn = new TurnHook.Started(agent.userId(), agent.id(), session, message);
        for (TurnHook hook : hooks) {
            try {
                hook.turnStarted(turn);
            } catch (RuntimeException e) {
                LOG.warn("Turn hook {} failed at the start of a turn of agent '{}'; the turn goes on",
                        hook.getClass().getName(), agent.id(), e);
            }
        }
    }

    static void ended(List<TurnHook> hooks, AgentDefinition agent, String session, Optional<AgentResponse> response) {
        if (hooks.isEmpty()) {
            return;
        }
        TurnHook.Ended turn = new TurnHook.Ended(agent.userId(), agent.id(), session, response);
        for (TurnHook hook : hooks) {
            try {
                hook.turnEnded(turn);
            } catch (RuntimeException e) {
                LOG.warn("Turn hook {} failed at the end of a turn of agent '{}'", hook.getClass().getName(), agent.id(), e);
            }
        }
    }
}
