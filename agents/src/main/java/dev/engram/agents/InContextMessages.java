package dev.engram.agents;

import dev.engram.memory.ChangeEvent;
import dev.engram.memory.Conversation;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStats;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.Scope;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * An agent's in-context messages, read whole once and then, at each step, only what was added since: every step
 * compiles its prompt from them, and a context of hundreds of messages read and decoded row by row each time was
 * the larger part of a step's cost. What was read is kept only while it is provably still the context: a message never
 * comes back into the context once it left, so the context now is the kept messages still in it plus those added;
 * when the store's in-context count is what was read plus what was added, none left, and when it is fewer, the
 * oldest kept ones left (compaction, a trim: messages leave the context oldest first) if the oldest message in the
 * context now is the first kept one after them; anything else (a message evicted from the middle, an import) reads
 * the whole context again. A stored message changes only by a correction ({@code MessageStore.edit}),
 * which the change log records: a change to one of the kept messages since they were read (by this process or
 * another sharing the storage) reads the whole context again too. What the agent stored itself ({@link #wrote}) is
 * not read back at all when the change log shows that nothing else was added.
 *
 * <p>A turn sees the context of its session ({@link #read(String)}): a conversation's session
 * ({@link Conversation#isConversationSession}) sees only its own messages; any other session sees the agent's own
 * history, every message that is not a conversation's. So several conversations share the agent's memory blocks
 * but not each other's messages.
 */
final class InContextMessages {
    /** The most change-log events looked through at a read; more count as a change (the whole context is read again). */
    private static final int MAX_EVENTS = 1_000;
    private final MemoryStore store;
    private final Scope scope;
    private final int max;
    private volatile List<ConversationMessage> last = List.of();
    /** The change log's newest sequence number before {@link #last} was read. */
    private volatile long lastSeq = -1;
    /** What the agent stored itself since the last read, oldest first ({@link #wrote}): the next read need not read it. */
    private final List<ConversationMessage> written = new ArrayList<>();
    /**
     * The ids of own writes already taken into {@link #last} by {@link #withOwnWrites} whose change-log events are after
     * {@link #lastSeq}: the next read takes each one's first event for its own write, not for a correction of a kept
     * message (which read the whole context again at every turn's start), and reads the whole context if one is missing.
     */
    private final Set<Long> merged = new HashSet<>();
    /** The statistics of the last read. */
    private MemoryStats lastStats;

    /**
     * Hears each stretch of the change log read, in order: every event of the scope's user since the last stretch (the
     * other users' events are not read); {@code null} for a stretch skipped unread.
     */
    private final Consumer<List<ChangeEvent>> changes;

    InContextMessages(MemoryStore store, Scope scope, int max) {
        this(store, scope, max, events -> { });
    }

    /**
     * Messages of {@code scope}, handing each stretch of the change log read after the last (its user's events) to
     * {@code changes}.
     */
    InContextMessages(MemoryStore store, Scope scope, int max, Consumer<List<ChangeEvent>> changes) {
        this.store = store;
        this.scope = scope;
        this.max = max;
        this.changes = changes;
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
        return of(session, read());
    }

    private static Read of(String session, Read all) {
        boolean conversation = Conversation.isConversationSession(session);
        List<ConversationMessage> seen = all.messages().stream().filter(m -> conversation
                ? m.sessionId().equals(session) : !Conversation.isConversationSession(m.sessionId())).toList();
        return seen.size() == all.messages().size() ? all : new Read(seen, all.stats());
    }

    /**
     * Notes messages of the scope that the agent itself stored (a turn's user message, a step's call and results), as the
     * store returned them: when the change log shows that they are all that was added since the last read, the next read
     * appends them to the kept messages instead of reading them back. Anything else added (by the API, another process, a
     * compaction) or a message noted here whose write did not commit (a rolled-back unit of work: its event never comes)
     * makes the next read read what was added from the store, as without this note.
     */
    synchronized void wrote(List<ConversationMessage> stored) {
        written.addAll(stored);
    }

    /**
     * The last read with what the agent stored itself since ({@link #wrote}) added, without asking the store: for the
     * first step of a turn, whose start read the context ({@link #read()}) a moment before it stored the turn's message.
     * The statistics count the added messages. Anything else written meanwhile is seen by the next {@link #read()}.
     */
    synchronized Read withOwnWrites(String session) {
        if (last.isEmpty() || lastStats == null) {
            return read(session);
        }
        List<ConversationMessage> mine = List.copyOf(written);
        written.clear();
        if (!mine.isEmpty()) {
            if (mine.getFirst().id() <= last.getLast().id()) {
                return read(session); // noted out of order: read it
            }
            List<ConversationMessage> all = new ArrayList<>(last.size() + mine.size());
            all.addAll(last);
            all.addAll(mine);
            last = List.copyOf(all);
            mine.forEach(m -> merged.add(m.id()));
            MemoryStats s = lastStats;
            lastStats = new MemoryStats(s.blocks(), s.archivalEntries(), s.notes(), s.messages() + mine.size(),
                    s.messagesInContext() + mine.size(), Optional.of(mine.getLast().createdAt()));
        }
        return of(session, new Read(last, lastStats));
    }

    /** The in-context messages of every session, and the scope's statistics. */
    synchronized Read read() {
        Read r = validated();
        lastStats = r.stats();
        return r;
    }

    private Read validated() {
        List<ConversationMessage> known = last;
        long seqBefore = lastSeq;
        List<ConversationMessage> mine = List.copyOf(written);
        written.clear();
        Set<Long> unconfirmed = new HashSet<>(merged);
        merged.clear();
        // The change log is read before the messages: a correction made while they are read is seen by the next read.
        // Only the user's events: what this reads and its listener keeps (the scope's messages, the user's blocks, the
        // agent's archives) are all the user's, and the log's other users are most of it on a shared server.
        List<ChangeEvent> read = known.isEmpty() ? List.of() : store.changes().since(scope.userId(), seqBefore, MAX_EVENTS);
        // The events of the own writes already kept (withOwnWrites) confirm them: they are neither corrections nor added.
        List<ChangeEvent> events = read.size() == MAX_EVENTS ? read : confirmed(read, unconfirmed);
        if (!known.isEmpty() && unconfirmed.isEmpty() && !corrected(known, events, read.size() == MAX_EVENTS)) {
            long seqNow = read.isEmpty() ? seqBefore : read.getLast().seq();
            List<ConversationMessage> added = onlyMine(known, mine, events) ? mine : store.messages().list(scope,
                    MessageQuery.inContext().withIdRange(known.getLast().id(), Long.MAX_VALUE).withLimit(max));
            // Read after the messages: a message stored meanwhile makes the count larger than what was read.
            MemoryStats stats = store.stats(scope);
            long count = stats.messagesInContext();
            // Messages only leave the context (none comes back), so the context now is the kept ones still in it and
            // the added ones; as many as the count, the evicted ones are the oldest kept: those before the oldest
            // message in the context now, read only when some left.
            long evicted = known.size() + added.size() - count;
            if (evicted >= 0 && evicted <= known.size() && count <= max && stillFirst(known, (int) evicted, stats)) {
                lastSeq = seqNow;
                changes.accept(read);
                if (added.isEmpty() && evicted == 0) {
                    return new Read(known, stats);
                }
                List<ConversationMessage> all = new ArrayList<>((int) count);
                all.addAll(known.subList((int) evicted, known.size()));
                all.addAll(added);
                List<ConversationMessage> now = List.copyOf(all);
                last = now;
                return new Read(now, stats);
            }
        }
        long seqNow = store.changes().lastSeq();
        changes.accept(null); // the change log up to here is not read: whatever it holds may have happened
        List<ConversationMessage> all = List.copyOf(store.messages().list(scope, MessageQuery.inContext().newest(max)));
        last = all;
        lastSeq = seqNow;
        return new Read(all, store.stats(scope));
    }

    /**
     * The events without the first one of each own write kept already ({@code ids}, from which each id found is
     * removed: what stays in it had no event, its write did not commit or is not yet seen).
     */
    private List<ChangeEvent> confirmed(List<ChangeEvent> events, Set<Long> ids) {
        if (ids.isEmpty()) {
            return events;
        }
        List<ChangeEvent> out = new ArrayList<>(events.size());
        for (ChangeEvent e : events) {
            if (!(ofScope(e) && e.op() == ChangeEvent.Op.UPSERT && ids.remove(Long.parseLong(e.id())))) {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * Whether the messages added to the scope since the kept ones were read are exactly those the agent stored itself:
     * the change log's message events of the scope name exactly their ids (none missing: each write committed; none
     * more: nobody else added one), all newer than the kept ones.
     */
    private boolean onlyMine(List<ConversationMessage> known, List<ConversationMessage> mine, List<ChangeEvent> events) {
        long newest = known.getLast().id();
        Set<Long> ids = new HashSet<>();
        for (ConversationMessage m : mine) {
            if (m.id() <= newest || !ids.add(m.id())) {
                return false;
            }
        }
        int seen = 0;
        for (ChangeEvent e : events) {
            if (ofScope(e)) {
                if (!ids.contains(Long.parseLong(e.id()))) {
                    return false;
                }
                seen++;
            }
        }
        return seen == ids.size();
    }

    private boolean ofScope(ChangeEvent e) {
        return e.entity() == ChangeEvent.Entity.MESSAGE && e.userId().equals(scope.userId())
                && e.agentId().filter(scope.agentId()::equals).isPresent();
    }

    /**
     * Whether the kept messages from {@code from} on are the ones still in the context, {@code from} being how many
     * left by the count: all when none left, none when all left (the added ones are then the whole count), otherwise
     * when the kept message at {@code from} is the oldest in the context now (those before it left, and as many as left
     * by the count: so exactly those). The oldest is the one the statistics name where the store reads it with them.
     */
    private boolean stillFirst(List<ConversationMessage> known, int from, MemoryStats stats) {
        if (from == 0 || from == known.size()) {
            return true;
        }
        if (stats.firstInContextId().isPresent()) { // read with the count, in the same statement
            return stats.firstInContextId().getAsLong() == known.get(from).id();
        }
        List<ConversationMessage> oldest = store.messages().list(scope, MessageQuery.inContext().withLimit(1));
        return !oldest.isEmpty() && oldest.getFirst().id() == known.get(from).id();
    }

    /**
     * Whether one of the kept messages (any of the scope's up to the newest kept) changed in these events of the change
     * log since they were read: a new message's event names a newer id. Too many events to look through count as a
     * change.
     */
    private boolean corrected(List<ConversationMessage> known, List<ChangeEvent> events, boolean tooMany) {
        if (tooMany) {
            return true;
        }
        long newest = known.getLast().id();
        for (ChangeEvent e : events) {
            if (ofScope(e) && Long.parseLong(e.id()) <= newest) {
                return true;
            }
        }
        return false;
    }
}
