package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/**
 * A message to append.
 *
 * @param sessionId  the session; non-blank
 * @param role       who said it
 * @param content    the text; may be empty (an assistant message that only calls tools)
 * @param toolCalls  for an assistant message, its tool calls
 * @param toolCallId for a tool message, the call it answers (required for {@link MessageRole#TOOL})
 * @param toolOutcome for a tool message, how the call ended and what it did (required for {@link MessageRole#TOOL},
 *                    absent for the others)
 * @param images     for a user message, the images it carries after its text, in order; empty for the other roles
 * @param reasoning  for an assistant message, the model's own reasoning behind it; {@link MessageReasoning#NONE} for
 *                   the other roles
 */
public record NewMessage(String sessionId, MessageRole role, String content, List<MessageToolCall> toolCalls,
        Optional<String> toolCallId, Optional<ToolOutcome> toolOutcome, List<MessageImage> images, MessageReasoning reasoning) {
    public NewMessage {
        Checks.id(sessionId, "session id");
        Checks.notNull(role, "role");
        Checks.text(content, "content");
        toolCalls = List.copyOf(Checks.noNulls(toolCalls, "tool calls"));
        Checks.notNull(toolCallId, "toolCallId");
        if (role == MessageRole.TOOL && toolCallId.isEmpty()) {
            throw new IllegalArgumentException("a tool message needs the id of the tool call it answers");
        }
        Checks.notNull(toolOutcome, "toolOutcome");
        if ((role == MessageRole.TOOL) != toolOutcome.isPresent()) {
            throw new IllegalArgumentException(role == MessageRole.TOOL ? "a tool message needs the outcome of the call it answers"
                    : "only tool messages carry a tool outcome, not " + role);
        }
        if (role != MessageRole.ASSISTANT && !toolCalls.isEmpty()) {
            throw new IllegalArgumentException("only assistant messages carry tool calls, not " + role);
        }
        images = List.copyOf(Checks.noNulls(images, "images"));
        if (role != MessageRole.USER && !images.isEmpty()) {
            throw new IllegalArgumentException("only user messages carry images, not " + role);
        }
        Checks.notNull(reasoning, "reasoning");
        if (role != MessageRole.ASSISTANT && !reasoning.isEmpty()) {
            throw new IllegalArgumentException("only assistant messages carry the model's reasoning, not " + role);
        }
    }

    /** A message without reasoning. */
    public NewMessage(String sessionId, MessageRole role, String content, List<MessageToolCall> toolCalls,
            Optional<String> toolCallId, Optional<ToolOutcome> toolOutcome, List<MessageImage> images) {
        this(sessionId, role, content, toolCalls, toolCallId, toolOutcome, images, MessageReasoning.NONE);
    }

    /** A message without images. */
    public NewMessage(String sessionId, MessageRole role, String content, List<MessageToolCall> toolCalls,
            Optional<String> toolCallId, Optional<ToolOutcome> toolOutcome) {
        this(sessionId, role, content, toolCalls, toolCallId, toolOutcome, List.of());
    }

    public static NewMessage user(String sessionId, String content) {
        return new NewMessage(sessionId, MessageRole.USER, content, List.of(), Optional.empty(), Optional.empty());
    }

    /** A user message with images after its text (the text may be empty when there are images). */
    public static NewMessage user(String sessionId, String content, List<MessageImage> images) {
        return new NewMessage(sessionId, MessageRole.USER, content, List.of(), Optional.empty(), Optional.empty(), images);
    }

    public static NewMessage system(String sessionId, String content) {
        return new NewMessage(sessionId, MessageRole.SYSTEM, content, List.of(), Optional.empty(), Optional.empty());
    }

    public static NewMessage assistant(String sessionId, String content, List<MessageToolCall> toolCalls) {
        return new NewMessage(sessionId, MessageRole.ASSISTANT, content, toolCalls, Optional.empty(), Optional.empty());
    }

    /** An assistant message with the model's own reasoning behind it. */
    public static NewMessage assistant(String sessionId, String content, List<MessageToolCall> toolCalls,
            MessageReasoning reasoning) {
        return new NewMessage(sessionId, MessageRole.ASSISTANT, content, toolCalls, Optional.empty(), Optional.empty(), List.of(),
                reasoning);
    }

    /** The result of a call that ran and did nothing more than answer ({@link ToolOutcome#OK}). */
    public static NewMessage tool(String sessionId, String toolCallId, String content) {
        return tool(sessionId, toolCallId, content, ToolOutcome.OK);
    }

    /** The result of a call, with how it ended and what it did. */
    public static NewMessage tool(String sessionId, String toolCallId, String content, ToolOutcome outcome) {
        return new NewMessage(sessionId, MessageRole.TOOL, content, List.of(), Optional.of(toolCallId),
                Optional.of(Checks.notNull(outcome, "outcome")));
    }
}
