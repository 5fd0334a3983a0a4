package dev.engram.agents;

import dev.engram.memory.Scope;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * Hands the calls of a step that wait for the client to it, all at once, and answers them. Implementations return at
 * once and complete the stage when the client answered: one {@link ClientAnswer} per call, by call id. The step waits up
 * to the agent's approval timeout (as for an approval): calls without an answer then, or when the stage fails, did not
 * run and say why; a turn cancelled meanwhile cancels the stage.
 */
@FunctionalInterface
public interface ClientHandler {
    CompletionStage<Map<String, ClientAnswer>> await(Scope scope, List<ClientCall> calls);
}
