package dev.engram.memory;

import dev.engram.memory.spi.ConversationRows;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The conversations of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one
 * lock, and record each change in its one undo log.
 */
interface InMemoryConversationRows extends ConversationRows {
    /** Every conversation by id. */
    Map<String, Conversation> conversationTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putConversation(Conversation conversation) {
        undo().put(conversationTable(), conversation.id(), conversation);
    }

    @Override
    default Optional<Conversation> conversation(String id) {
        return Optional.ofNullable(conversationTable().get(id));
    }

    @Override
    default List<Conversation> listConversations(String userId) {
        return conversationTable().values().stream().filter(c -> c.userId().equals(userId))
                .sorted(Comparator.comparing(Conversation::createdAt).thenComparing(Conversation::id)).toList();
    }

    @Override
    default boolean deleteConversation(String id) {
        return undo().remove(conversationTable(), id);
    }
}
