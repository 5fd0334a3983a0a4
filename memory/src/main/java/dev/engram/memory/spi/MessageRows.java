package dev.engram.memory.spi;

import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The messages of a {@link MemoryBackend} (recall memory): each scope's conversation, in context or out of it.
 */
public interface MessageRows {
    /**
     * Appends messages created at {@code at}, in context, and returns them with their ids: increasing,
     * never reused, in the order given, across the whole storage.
     */
    List<ConversationMessage> insertMessages(Scope scope, List<NewMessage> messages, Instant at);

    Optional<ConversationMessage> message(Scope scope, long id);

    /** The scope's messages matching every filter of {@code query}, oldest first (see {@link MessageQuery}). */
    List<ConversationMessage> listMessages(Scope scope, MessageQuery query);

    /** Marks those of {@code ids} that are the scope's and in context as out of context; returns how many. */
    int markOutOfContext(Scope scope, Collection<Long> ids);

    /**
     * Replaces the text of the scope's message {@code id}: its content, tool calls and reasoning (its id, role, session,
     * time and place in or out of context stay). Returns whether the scope has that message.
     */
    boolean updateMessageText(Scope scope, long id, String content, List<MessageToolCall> toolCalls, MessageReasoning reasoning);
}
