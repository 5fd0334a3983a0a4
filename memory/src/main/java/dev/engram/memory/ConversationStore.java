package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/**
 * The conversations of each user's agents ({@link Conversation}). Backends keep them through the optional
 * conversation methods of {@link dev.engram.memory.spi.Rows}; over a backend without them every method here throws
 * {@link UnsupportedOperationException}. A conversation is always read and changed as its user's: another user's
 * conversation is not there. Deleting a conversation keeps its messages (recall memory keeps everything).
 */
public final class ConversationStore {
    /** The longest summary kept, in characters. */
    public static final int MAX_SUMMARY_CHARS = 10_000;

    private final StoreCore store;

    ConversationStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Starts a conversation with the scope's agent.
     *
     * @throws IllegalArgumentException if the summary is longer than {@link #MAX_SUMMARY_CHARS} or not valid Unicode
     */
    public Conversation create(Scope scope, String summary) {
        Checks.notNull(scope, "scope");
        checkSummary(summary);
        return store.write(rows -> {
            Conversation c = new Conversation(Ids.next("conv"), scope.userId(), scope.agentId(), summary, store.now(),
                    store.now());
            rows.putConversation(c);
            return c;
        });
    }

    /** The user's conversation of that id. */
    public Optional<Conversation> get(String userId, String id) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "conversation id");
        return store.read(rows -> rows.conversation(id)).filter(c -> c.userId().equals(userId));
    }

    /** The user's conversations, oldest first. */
    public List<Conversation> list(String userId) {
        Checks.notNull(userId, "user id");
        return store.read(rows -> rows.listConversations(userId));
    }

    /**
     * Changes the summary of the user's conversation.
     *
     * @throws NotFoundException        if the user has no conversation of that id
     * @throws IllegalArgumentException if the summary is too long or not valid Unicode (nothing changes)
     */
    public Conversation updateSummary(String userId, String id, String summary) {
        checkSummary(summary);
        return store.write(rows -> {
            Conversation c = rows.conversation(id).filter(x -> x.userId().equals(userId))
                    .orElseThrow(() -> new NotFoundException("Conversation '" + id + "' not found."));
            Conversation changed = new Conversation(c.id(), c.userId(), c.agentId(), summary, c.createdAt(), store.now(),
                    c.metadata());
            rows.putConversation(changed);
            return changed;
        });
    }

    /**
     * Replaces the metadata of the user's conversation ({@link Metadata#empty()} clears it); its summary stays.
     *
     * @throws NotFoundException if the user has no conversation of that id (nothing changes)
     */
    public Conversation updateMetadata(String userId, String id, Metadata metadata) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "conversation id");
        Checks.notNull(metadata, "metadata");
        return store.write(rows -> {
            Conversation c = rows.conversation(id).filter(x -> x.userId().equals(userId))
                    .orElseThrow(() -> new NotFoundException("Conversation '" + id + "' not found."));
            Conversation changed = new Conversation(c.id(), c.userId(), c.agentId(), c.summary(), c.createdAt(), store.now(),
                    metadata);
            rows.putConversation(changed);
            return changed;
        });
    }

    /** Removes the user's conversation (its messages stay); returns whether there was one. */
    public boolean delete(String userId, String id) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "conversation id");
        return store.write(rows -> rows.conversation(id).filter(c -> c.userId().equals(userId)).isPresent()
                && rows.deleteConversation(id));
    }

    private static void checkSummary(String summary) {
        Checks.unicode(summary, "conversation summary");
        if (summary.length() > MAX_SUMMARY_CHARS) {
            throw new IllegalArgumentException("a conversation summary has at most " + MAX_SUMMARY_CHARS
                    + " characters, got " + summary.length() + "; shorten it");
        }
    }
}
