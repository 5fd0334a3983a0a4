package dev.engram.memory.spi;

import dev.engram.memory.AgentRecord;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Block;
import dev.engram.memory.ChangeEvent;
import dev.engram.memory.MemoryStats;
import dev.engram.memory.Note;
import dev.engram.memory.Scope;
import dev.engram.memory.UserUsage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The row operations of one {@link MemoryBackend} transaction. Each stores or returns exactly what it
 * is given, filtered by the scope it is given; the store above has already validated the arguments and
 * checked every rule (labels free, versions current, limits kept), so no method here needs to.
 *
 * <p>The operations come in one interface per store, which this one gathers: {@link BlockRows} (a block is
 * identified by its owner's scope and its label; an agent sees its own blocks and the blocks shared with it,
 * with the share's permission), {@link ArchivalRows}, {@link NoteRows}, {@link MessageRows}, {@link AgentRows},
 * and the optional ones, whose defaults throw {@link UnsupportedOperationException}: {@link ScheduleRows},
 * {@link KeyRows}, {@link IdentityRows}, {@link ConversationRows}, {@link ProviderRows}, {@link CustomToolRows},
 * {@link McpServerRows}, {@link RunRows}, {@link WorkStateRows}, {@link CanvasRows}, {@link ArchiveRows},
 * {@link GroupRows}, {@link JobRows} and {@link FolderRows}. This one adds the change log and the statistics.
 * Lists come back in the order each method names.
 */
public interface Rows extends BlockRows, ArchivalRows, NoteRows, MessageRows, AgentRows, ScheduleRows, KeyRows,
        IdentityRows, ConversationRows, ProviderRows, CustomToolRows, McpServerRows, RunRows, WorkStateRows, CanvasRows,
        ArchiveRows, GroupRows, JobRows, FolderRows {
    /** Appends events in order, each with the next sequence number (strictly increasing, never reused). */
    void appendChanges(List<NewChange> changes);

    /** Events with {@code seq > afterSeq}, oldest first, at most {@code max}. */
    List<ChangeEvent> changesSince(long afterSeq, int max);

    /**
     * The events of one user ({@link ChangeEvent#userId}) with {@code seq > afterSeq}, oldest first, at most {@code max}:
     * what {@link #changesSince} returns without the other users' events. An agent's reader of the log needs no more (its
     * messages, its blocks and the blocks shared with it, which are its user's, its archives). The default pages through
     * {@link #changesSince}; a backend whose log is shared by many users answers it from an index by user.
     */
    default List<ChangeEvent> userChangesSince(String userId, long afterSeq, int max) {
        List<ChangeEvent> out = new ArrayList<>();
        long after = afterSeq;
        while (out.size() < max) {
            List<ChangeEvent> page = changesSince(after, USER_CHANGES_PAGE);
            for (ChangeEvent e : page) {
                if (e.userId().equals(userId) && out.size() < max) {
                    out.add(e);
                }
            }
            if (page.size() < USER_CHANGES_PAGE) {
                break;
            }
            after = page.getLast().seq();
        }
        return out;
    }

    /** How many events {@link #userChangesSince}'s default reads at a time. */
    int USER_CHANGES_PAGE = 1_000;

    /** The newest sequence number, or 0 when the log is empty. */
    long lastChangeSeq();

    /** Counts for the scope: blocks it sees, its archival entries, its user's notes, its messages. */
    MemoryStats stats(Scope scope);

    /**
     * What the user keeps: agents, owned blocks, archival entries, notes and their bytes. The default reads every row of
     * the user; a backend overrides it with counts (the three Engram backends answer it from their indexes).
     */
    default UserUsage usage(String userId) {
        long agents = 0;
        long blocks = 0;
        long entries = 0;
        long bytes = 0;
        for (AgentRecord agent : listAgents(userId)) {
            agents++;
            for (Block b : blocks(agent.scope())) {
                if (!b.isShared(agent.scope())) {
                    blocks++;
                    bytes += b.value().getBytes(StandardCharsets.UTF_8).length;
                }
            }
            for (int offset = 0; ; offset += 1_000) {
                List<ArchivalEntry> page = listArchival(agent.scope(), offset, 1_000);
                for (ArchivalEntry e : page) {
                    entries++;
                    bytes += e.content().getBytes(StandardCharsets.UTF_8).length;
                }
                if (page.size() < 1_000) {
                    break;
                }
            }
        }
        long notes = 0;
        for (int offset = 0; ; offset += 1_000) {
            List<Note> page = listNotes(userId, offset, 1_000);
            for (Note n : page) {
                notes++;
                bytes += n.content().getBytes(StandardCharsets.UTF_8).length;
            }
            if (page.size() < 1_000) {
                break;
            }
        }
        return new UserUsage(agents, blocks, entries, notes, bytes);
    }

    /**
     * The storage's identity: fixed when it was created (a backup restored keeps its original's).
     * Derived indexes record it, so that an index is never used over another store. The default, empty,
     * means the backend has none; an index then relies on the change log alone.
     */
    default String storeId() {
        return "";
    }

    /**
     * Runs {@code work} inside the open write transaction so that what it writes can be undone alone: a savepoint is set
     * before it and released when it returns {@code true} (its writes stay, to commit with the transaction); when it
     * returns {@code false} or throws, the transaction goes back to the savepoint (its writes are gone, the earlier ones
     * stay) and the exception reaches the caller. Only a backend whose {@link MemoryBackend#savepoints()} is
     * {@code true} is asked; the default throws {@link UnsupportedOperationException}.
     *
     * @return what {@code work} returned: whether its writes were kept
     */
    default boolean savepoint(BooleanSupplier work) {
        throw new UnsupportedOperationException("This backend cannot undo part of a transaction (no savepoints).");
    }
}
