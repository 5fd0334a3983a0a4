package dev.engram.agents;

import java.util.Objects;
import java.util.Optional;

/**
 * A call of a turn's step that waits for the turn's client: a call of one of the turn's {@link ClientTools}, which the
 * client runs, or a call of the agent's own tool that needs the client's approval and was made in the same step. A
 * step hands all of them to its {@link ClientHandler} at once, before any call of the step runs.
 *
 * @param callId    the model's id of the call
 * @param toolName  the tool called
 * @param arguments the call's arguments as JSON (without {@code request_heartbeat})
 * @param kind      whether the client runs it or approves it
 * @param preview   for an approval, what the tool says the call will do (e.g. a diff); empty otherwise
 */
public record ClientCall(String callId, String toolName, String arguments, Kind kind, Optional<String> preview) {
    /** What the client is asked to do with a call. */
    public enum Kind {
        /** Run it (a client tool) and answer with its result ({@link ClientAnswer.Ran}). */
        RUN,
        /** Approve or deny it (the agent's own tool); the agent runs it if approved ({@link ClientAnswer.Decided}). */
        APPROVE
    }

    public ClientCall {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(toolName, "toolName");
        Objects.requireNonNull(arguments, "arguments");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(preview, "preview");
    }
}
