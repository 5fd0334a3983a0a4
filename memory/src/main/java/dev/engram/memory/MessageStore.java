package dev.engram.memory;

import dev.engram.memory.spi.NewChange;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** Every message of every conversation: recall memory. Messages are never deleted, only moved out of context. */
public final class MessageStore {
    private final StoreCore store;

    MessageStore(StoreCore store) {
        this.store = store;
    }

    /** Appends one message. */
    public ConversationMessage append(Scope scope, NewMessage message) {
        return appendAll(scope, List.of(Checks.notNull(message, "message"))).get(0);
    }

    /**
     * Appends messages in one transaction, in order: use it for an assistant's tool calls and their
     * results, so that a crash never leaves a call without its result.
     */
    public List<ConversationMessage> appendAll(Scope scope, List<NewMessage> messages) {
        Checks.notNull(scope, "scope");
        Checks.noNulls(messages, "messages");
        if (messages.isEmpty()) {
            return List.of();
        }
        messages.forEach(m -> store.limits().check(m.content(), "message content"));
        messages.forEach(m -> store.limits().checkImages(m.images()));
        return store.write(rows -> {
            List<ConversationMessage> out = rows.insertMessages(scope, messages, store.now());
            rows.appendChanges(out.stream().map(m -> new NewChange(ChangeEvent.Entity.MESSAGE, Long.toString(m.id()),
                    ChangeEvent.Op.UPSERT, scope.userId(), Optional.of(scope.agentId()))).toList());
            return out;
        });
    }

    /** The scope's message with that id. */
    public Optional<ConversationMessage> get(Scope scope, long id) {
        Checks.notNull(scope, "scope");
        return store.read(rows -> rows.message(scope, id));
    }

    /** The scope's messages that match the query, oldest first. */
    public List<ConversationMessage> list(Scope scope, MessageQuery query) {
        Checks.notNull(scope, "scope");
        Checks.notNull(query, "query");
        return store.read(rows -> rows.listMessages(scope, query));
    }

    /** How many messages the scope has. */
    public long count(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(rows -> rows.stats(scope).messages());
    }

    /**
     * Replaces what a stored message says: its content, tool calls and reasoning. Its id, role, session, time and place
     * in (or out of) the context window stay, and recall search finds the new text. Used to correct a message.
     *
     * @return the message as it is now
     * @throws NotFoundException       if the scope has no message of that id
     * @throws IllegalArgumentException if the content is longer than the store's {@link MemoryLimits}; nothing changes then
     */
    public ConversationMessage edit(Scope scope, long id, String content, List<MessageToolCall> toolCalls,
            MessageReasoning reasoning) {
        Checks.notNull(scope, "scope");
        Checks.notNull(content, "content");
        Checks.noNulls(toolCalls, "toolCalls");
        Checks.notNull(reasoning, "reasoning");
        store.limits().check(content, "message content");
        return store.write(rows -> {
            if (!rows.updateMessageText(scope, id, content, List.copyOf(toolCalls), reasoning)) {
                throw new NotFoundException("No message " + id + " of agent '" + scope.agentId() + "' of user '"
                        + scope.userId() + "'.");
            }
            rows.appendChanges(List.of(new NewChange(ChangeEvent.Entity.MESSAGE, Long.toString(id), ChangeEvent.Op.UPSERT,
                    scope.userId(), Optional.of(scope.agentId()))));
            return rows.message(scope, id).orElseThrow();
        });
    }

    /** Marks messages as evicted from the context window; ids outside the scope are ignored. Returns how many changed. */
    public int markOutOfContext(Scope scope, Collection<Long> ids) {
        Checks.notNull(scope, "scope");
        Checks.noNulls(ids, "ids");
        if (ids.isEmpty()) {
            return 0;
        }
        return store.write(rows -> rows.markOutOfContext(scope, ids));
    }
}
