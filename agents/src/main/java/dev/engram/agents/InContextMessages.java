package dev.engram.agents;

import dev.engram.memory.ChangeEvent;
import dev.engram.memory.Conversation;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStats;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.util.ArrayList;
import java.util.List;

/**
 * An agent's in-context messages, read whole once and then, at each step, only what was added since: every step
 * compiles its prompt from them, and a context of hundreds of messages read and decoded row by row each time was
 * the larger part of a step's cost. What was read is kept only while it is provably still the context: the oldest
 * in-context message is the same (messages leave the context oldest first: compaction, a reset) and the store's
 * in-context count is what was read plus what was added; anything else (another process compacted, a reset, an
 * import) reads the whole context again. A stored message changes only by a correction ({@code MessageStore.edit}),
 * which the change log records: a change to one of the kept messages since they were read (by this process or
 * another sharing the storage) reads the whole context again too.
 *
 * <p>A turn sees the context of its session ({@link #read(String)}): a conversation's session
 * ({@link Conversation#isConversationSession}) sees only its own messages; any other session sees the agent's own
 * history, every message that is not a conversation's. So several conversations share the agent's memory blocks
 * but not each other's messages.
 */
final class InContextMessages {
    private final MemoryStore store;
    private final Scope scope;
    private final int max;
    private volatile List<ConversationMessage> last = List.of();
    /** The change log's newest sequence number before {@link #last} was read. */
    private volatile long lastSeq = -1;

    InContextMessages(MemoryStore store, Scope scope, int max) {
        this.store = store;
        this.scope = scope;
        this.max = max;
    }

    /**
     * The in-context messages, and the scope's statistics read with them (a step shows them in its prompt).
     *
     * @param messages every in-context message of the scope, oldest first (at most {@code max}, the newest)
     * @param stats    the scope's statistics, read after the messages
     */
    record Read(List<ConversationMessage> messages, MemoryStats stats) {
    }

    /** Every in-context message of the scope, oldest first (at most {@code max}, the newest). */
    List<ConversationMessage> messages() {
        return read().messages();
    }

    /** The in-context messages a turn in {@code session} sees, and the scope's statistics. */
    Read read(String session) {
        Read all = read();
        boolean conversation = Conversation.isConversationSession(session);
        List<ConversationMessage> seen = all.messages().stream().filter(m -> conversation
                ? m.sessionId().equals(session) : !Conversation.isConversationSession(m.sessionId())).toList();
        return seen.size() == all.messages().size() ? all : new Read(seen, all.stats());
    }

    /** The in-context messages of every session, and the scope's statistics. */
    Read read() {
        List<ConversationMessage> known = last;
        long seqBefore = lastSeq;
        // Read before the messages: a correction made while they are read is seen by the next read.
        long seqNow = store.changes().lastSeq();
        if (!known.isEmpty() && !corrected(known, seqBefore)) {
            List<ConversationMessage> added = store.messages().list(scope,
                    MessageQuery.inContext().withIdRange(known.getLast().id(), Long.MAX_VALUE).withLimit(max));
            List<ConversationMessage> oldest = store.messages().list(scope, MessageQuery.inContext().withLimit(1));
            MemoryStats stats = store.stats(scope);
            long count = stats.messagesInContext();
            if (!oldest.isEmpty() && oldest.getFirst().id() == known.getFirst().id() && known.size() + added.size() == count
                    && count <= max) {
                lastSeq = seqNow;
                if (added.isEmpty()) {
                    return new Read(known, stats);
                }
                List<ConversationMessage> all = new ArrayList<>(known.size() + added.size());
                all.addAll(known);
                all.addAll(added);
                List<ConversationMessage> now = List.copyOf(all);
                last = now;
                return new Read(now, stats);
            }
        }
        List<ConversationMessage> all = List.copyOf(store.messages().list(scope, MessageQuery.inContext().newest(max)));
        last = all;
        lastSeq = seqNow;
        return new Read(all, store.stats(scope));
    }

    /**
     * Whether one of the kept messages (any of the scope's up to the newest kept) changed after change {@code seq}:
     * a new message's event names a newer id. Too many events to look through count as a change.
     */
    private boolean corrected(List<ConversationMessage> known, long seq) {
        int most = 1_000;
        List<ChangeEvent> events = store.changes().since(seq, most);
        if (events.size() == most) {
            return true;
        }
        long newest = known.getLast().id();
        for (ChangeEvent e : events) {
            if (e.entity() == ChangeEvent.Entity.MESSAGE && e.userId().equals(scope.userId())
                    && e.agentId().filter(scope.agentId()::equals).isPresent() && Long.parseLong(e.id()) <= newest) {
                return true;
            }
        }
        return false;
    }
}
