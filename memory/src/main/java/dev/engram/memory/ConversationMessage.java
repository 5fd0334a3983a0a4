package dev.engram.memory;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One message of a conversation, kept forever as recall memory.
 *
 * @param id         increasing in the order messages were appended (across the whole store)
 * @param agentId    the agent
 * @param userId     the user
 * @param sessionId  the session it belongs to
 * @param role       who said it
 * @param content    the text (for a tool message, the tool's result)
 * @param toolCalls  the tool calls of an assistant message
 * @param toolCallId for a tool message, the id of the call it answers
 * @param createdAt  when it was appended
 * @param inContext  whether it is still in the agent's context window (evicted messages stay in recall memory)
 * @param toolOutcome for a tool message, how the call ended and what it did; empty for the other roles
 * @param images     for a user message, the images it carries after its text, in order; empty for most messages
 * @param reasoning  for an assistant message, the model's own reasoning behind it ({@link MessageReasoning#NONE} when
 *                   its provider showed none, and for the other roles)
 */
public record ConversationMessage(long id, String agentId, String userId, String sessionId, MessageRole role,
        String content, List<MessageToolCall> toolCalls, Optional<String> toolCallId, Instant createdAt,
        boolean inContext, Optional<ToolOutcome> toolOutcome, List<MessageImage> images, MessageReasoning reasoning) {
    public ConversationMessage {
        toolCalls = List.copyOf(toolCalls);
        Checks.notNull(toolCallId, "toolCallId");
        Checks.notNull(toolOutcome, "toolOutcome");
        images = List.copyOf(Checks.noNulls(images, "images"));
        Checks.notNull(reasoning, "reasoning");
    }

    /** A message without reasoning. */
    public ConversationMessage(long id, String agentId, String userId, String sessionId, MessageRole role,
            String content, List<MessageToolCall> toolCalls, Optional<String> toolCallId, Instant createdAt,
            boolean inContext, Optional<ToolOutcome> toolOutcome, List<MessageImage> images) {
        this(id, agentId, userId, sessionId, role, content, toolCalls, toolCallId, createdAt, inContext, toolOutcome, images,
                MessageReasoning.NONE);
    }

    /** A message without images. */
    public ConversationMessage(long id, String agentId, String userId, String sessionId, MessageRole role,
            String content, List<MessageToolCall> toolCalls, Optional<String> toolCallId, Instant createdAt,
            boolean inContext, Optional<ToolOutcome> toolOutcome) {
        this(id, agentId, userId, sessionId, role, content, toolCalls, toolCallId, createdAt, inContext, toolOutcome,
                List.of(), MessageReasoning.NONE);
    }

    /** This message with {@code images} (as a backend that reads them apart from the message sets them). */
    public ConversationMessage withImages(List<MessageImage> images) {
        return new ConversationMessage(id, agentId, userId, sessionId, role, content, toolCalls, toolCallId, createdAt,
                inContext, toolOutcome, images, reasoning);
    }

    /** This message moved out of (or back into) the agent's context window. */
    public ConversationMessage withInContext(boolean inContext) {
        return new ConversationMessage(id, agentId, userId, sessionId, role, content, toolCalls, toolCallId, createdAt,
                inContext, toolOutcome, images, reasoning);
    }

    /** Whether this is the result of a tool call that did not end {@link ToolOutcome.Status#OK}. */
    public boolean failedToolCall() {
        return toolOutcome.map(ToolOutcome::failed).orElse(false);
    }

    public Scope scope() {
        return new Scope(userId, agentId);
    }
}
