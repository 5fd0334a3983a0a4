package dev.engram.agents;

import dev.engram.framework.ToolResult;
import java.util.Optional;

/**
 * What {@code Agent.stream} delivers while the agent works on a message, as it happens. Steps count
 * from 1 within the message. In each step: {@link StepStarted}; then, as the model streams, its
 * {@link Reasoning}, {@link Text} and {@link ToolCallDelta} fragments (and {@link ReplyDelta} for the
 * message of a {@code send_message} call being written); {@link Usage} when the model is done; while a call runs,
 * the {@link ToolProgress} it reports; a {@link ToolReturn} per call; {@link StepFinished}. Last comes
 * {@link Completed}, once. More kinds of event may come in later versions: a listener ignores those it does not know.
 */
public sealed interface AgentStreamEvent {
    /** The step this event belongs to (0 for {@link Completed}). */
    int step();

    /** A step (one model call and its tool calls) begins. */
    record StepStarted(int step) implements AgentStreamEvent {
    }

    /** A piece of the model's text. When the model answers with text only, this is the reply. */
    record Text(int step, String delta) implements AgentStreamEvent {
    }

    /** A piece of the model's reasoning, where the provider streams it; reasoning is not stored. */
    record Reasoning(int step, String delta) implements AgentStreamEvent {
    }

    /**
     * A fragment of tool call {@code index} of this step: the first fragment of a call has its id and
     * name, later ones have them empty and carry pieces of the arguments' JSON text.
     */
    record ToolCallDelta(int step, int index, String callId, String toolName, String argumentsDelta)
            implements AgentStreamEvent {
    }

    /**
     * A piece of the message a call writes for the user (the argument its tool declares in
     * {@link dev.engram.framework.DynamicTool#userMessageArgument()}, such as {@code send_message}'s {@code message}),
     * decoded from the arguments as they stream. The first of a call comes, empty, before the call's first
     * {@link ToolCallDelta}. Whether the text reached the user only the call's {@link ToolReturn} says
     * ({@link dev.engram.framework.ToolEffect#MESSAGE_TO_USER}): a call refused, denied or addressed to another agent
     * did not.
     */
    record ReplyDelta(int step, int index, String delta) implements AgentStreamEvent {
    }

    /** Tokens the model reported for this step's call. */
    record Usage(int step, int inputTokens, int outputTokens) implements AgentStreamEvent {
    }

    /**
     * Output a running call reported ({@link dev.engram.framework.ToolContext#progress()}): a build's log, a download's
     * progress. It is for the people watching; the model gets only the call's result ({@link ToolReturn}). Reports are
     * coalesced (at most one per call every 100 ms, each at most
     * {@value dev.engram.framework.ToolProgressListener#MAX_CHUNK_CHARS} characters, keeping the end of what was
     * printed), and all of a call's come before its {@link ToolReturn}. They may come from another thread than the
     * other events, one at a time.
     *
     * @param callId   the id of the call, as in its {@link ToolCallDelta} and {@link ToolReturn}
     * @param chunk    the output since the call's last report (possibly parts of lines)
     */
    record ToolProgress(int step, String callId, String toolName, String chunk) implements AgentStreamEvent {
    }

    /** A tool call's result, after it is stored. */
    record ToolReturn(int step, ToolResult result) implements AgentStreamEvent {
    }

    /** A step ended; {@code stopReason} is present when the agent stops after it. */
    record StepFinished(int step, Optional<AgentStopReason> stopReason) implements AgentStreamEvent {
    }

    /** The agent is done with the message: the same response {@code Agent.stream} returns. */
    record Completed(AgentResponse response) implements AgentStreamEvent {
        @Override
        public int step() {
            return 0;
        }
    }
}
