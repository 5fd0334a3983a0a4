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
 */
public record NewMessage(String sessionId, MessageRole role, String content, List<MessageToolCall> toolCalls,
        Optional<String> toolCallId) {
    public NewMessage {
        Checks.id(sessionId, "session id");
        Checks.notNull(role, "role");
        Checks.text(content, "content");
        toolCalls = List.copyOf(Checks.noNulls(toolCalls, "tool calls"));
        Checks.notNull(toolCallId, "toolCallId");
        if (role == MessageRole.TOOL && toolCallId.isEmpty()) {
            throw new IllegalArgumentException("a tool message needs the id of the tool call it answers");
        }
        if (role != MessageRole.ASSISTANT && !toolCalls.isEmpty()) {
            throw new IllegalArgumentException("only assistant messages carry tool calls, not " + role);
        }
    }

    public static NewMessage user(String sessionId, String content) {
        return new NewMessage(sessionId, MessageRole.USER, content, List.of(), Optional.empty());
    }

    public static NewMessage system(String sessionId, String content) {
        return new NewMessage(sessionId, MessageRole.SYSTEM, content, List.of(), Optional.empty());
    }

    public static NewMessage assistant(String sessionId, String content, List<MessageToolCall> toolCalls) {
        return new NewMessage(sessionId, MessageRole.ASSISTANT, content, toolCalls, Optional.empty());
    }

    public static NewMessage tool(String sessionId, String toolCallId, String content) {
        return new NewMessage(sessionId, MessageRole.TOOL, content, List.of(), Optional.of(toolCallId));
    }
}
