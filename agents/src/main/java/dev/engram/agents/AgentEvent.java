package dev.engram.agents;

import dev.engram.framework.ApprovalRequest;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolResult;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.Scope;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What happens inside an agent, in order, for a UI or a log to follow. Every event names the agent's
 * {@link Scope}; {@link AgentListener}s receive them on the thread that runs the step.
 */
public sealed interface AgentEvent {
    Scope scope();

    /** A step (one model call and its tool calls) begins. Steps count from 1 within a message received. */
    record StepStarted(Scope scope, int step) implements AgentEvent {
    }

    /** A step ended; {@code stopReason} is present when the agent stops after it. */
    record StepFinished(Scope scope, int step, Optional<AgentStopReason> stopReason) implements AgentEvent {
    }

    /**
     * A step's call to the agent's model ended, answered or failed (a retry after compacting is a call of its own).
     * For metrics: which model, how long the call took, and the tokens the provider reported (zero when it did not,
     * or when the call failed).
     *
     * @param model        the agent's model spec, as its definition names it
     * @param duration     wall time of the call
     * @param inputTokens  prompt tokens the provider reported
     * @param outputTokens completion tokens the provider reported
     * @param failed       whether the call ended with an exception rather than an answer
     */
    record ModelCalled(Scope scope, String model, Duration duration, int inputTokens, int outputTokens, boolean failed)
            implements AgentEvent {
    }

    /**
     * A step ended, with what it was (after {@link StepFinished}; or, when its model call failed, alone, before the
     * turn fails): for a server to keep as the step of its run.
     *
     * @param session      the session of the turn ({@code default} or a conversation's id)
     * @param model        the agent's model spec, as its definition names it
     * @param startedAt    when the step began
     * @param modelTime    how long its model calls took
     * @param completedAt  when it ended (its tools had run)
     * @param inputTokens  prompt tokens the provider reported
     * @param outputTokens completion tokens the provider reported
     * @param request      what the model was asked, as compact JSON: {@code message_ids} (the stored messages of the
     *                     prompt, beside its system prompt and memory), {@code tools} offered, {@code prompt_messages},
     *                     {@code estimated_prompt_tokens}
     * @param response     what it answered, as JSON: {@code text}, {@code tool_calls} ({@code {}} when it failed)
     * @param stopReason   present when the turn stops after it
     * @param status       {@code success}, {@code failed} (its model call failed) or {@code cancelled}
     */
    record StepTaken(Scope scope, String session, int step, String model, Instant startedAt, Duration modelTime,
            Instant completedAt, int inputTokens, int outputTokens, String request, String response,
            Optional<AgentStopReason> stopReason, String status) implements AgentEvent {
    }

    /** The model asked for a tool call; it is about to run. */
    record ToolCallStarted(Scope scope, ToolCall call) implements AgentEvent {
    }

    /** A tool call finished (successfully or not). */
    record ToolCallFinished(Scope scope, ToolResult result) implements AgentEvent {
    }

    /** The agent sent a message with {@code send_message}: to its user, or to another agent ({@code toAgentId}). */
    record MessageSent(Scope scope, Optional<String> toAgentId, String text) implements AgentEvent {
    }

    /** A tool call waits for a human's approval. */
    record ApprovalRequested(Scope scope, ApprovalRequest request) implements AgentEvent {
    }

    /**
     * Messages were added to the agent's conversation (its recall memory), as stored, in order: the message it
     * received, the model's answers and tool calls, the tools' results, the runtime's notes and context summaries.
     * A UI or a server can show a turn's messages from these events without reading them back from the store.
     */
    record MessagesStored(Scope scope, List<ConversationMessage> messages) implements AgentEvent {
        public MessagesStored {
            messages = List.copyOf(messages);
        }
    }

    /** The prompt passed the memory-pressure threshold; a warning was added to it. */
    record MemoryPressure(Scope scope, int promptTokens, int contextWindowTokens) implements AgentEvent {
    }

    /** The oldest in-context messages were summarised and moved out of the context window. */
    record ContextCompacted(Scope scope, int evictedMessages, int tokensBefore, int tokensAfter) implements AgentEvent {
    }
}
