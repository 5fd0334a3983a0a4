package dev.engram.memory.spi;

import dev.engram.memory.Conversation;
import java.util.List;
import java.util.Optional;

/**
 * The conversations of a {@link MemoryBackend}: several per agent, each a session of its messages. Optional: the
 * defaults throw.
 */
public interface ConversationRows {
    /** Stores a conversation, replacing the one of its id. Conversations are optional, like identities: the defaults throw. */
    default void putConversation(Conversation conversation) {
        throw noConversations();
    }

    /** The conversation of that id, whoever's it is. */
    default Optional<Conversation> conversation(String id) {
        throw noConversations();
    }

    /** The user's conversations, oldest first. */
    default List<Conversation> listConversations(String userId) {
        throw noConversations();
    }

    /** Removes a conversation; returns whether there was one. */
    default boolean deleteConversation(String id) {
        throw noConversations();
    }

    private static UnsupportedOperationException noConversations() {
        return new UnsupportedOperationException("this memory backend keeps no conversations (it does not implement the "
                + "conversation methods of Rows)");
    }
}
