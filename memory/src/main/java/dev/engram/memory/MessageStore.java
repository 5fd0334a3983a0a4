package dev.engram.memory;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** Every message of every conversation: recall memory. Messages are never deleted, only moved out of context. */
public interface MessageStore {
    ConversationMessage append(Scope scope, NewMessage message);

    /**
     * Appends messages in one transaction, in order: use it for an assistant's tool calls and their
     * results, so that a crash never leaves a call without its result.
     */
    List<ConversationMessage> appendAll(Scope scope, List<NewMessage> messages);

    Optional<ConversationMessage> get(Scope scope, long id);

    List<ConversationMessage> list(Scope scope, MessageQuery query);

    long count(Scope scope);

    /** Marks messages as evicted from the context window; ids outside the scope are ignored. Returns how many changed. */
    int markOutOfContext(Scope scope, Collection<Long> ids);
}
