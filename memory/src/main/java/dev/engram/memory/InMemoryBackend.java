package dev.engram.memory;

import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.spi.NewChange;
import dev.engram.memory.spi.Rows;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.UUID;
import java.util.function.Function;

/**
 * The reference backend: rows in maps, one lock, and an undo log that rolls a failed write back. It
 * is the plainest statement of what {@link Rows} means, and runs the same conformance suite as SQLite.
 *
 * <p>Each store's rows live in an interface of their own ({@link InMemoryBlockRows}, {@link InMemoryNoteRows}…), whose
 * maps this class holds; every one of them runs inside {@link #write} or {@link #read}, under the one lock, and records
 * its changes in the one {@link InMemoryUndo}. This class keeps the change log and the statistics over all of them.
 */
final class InMemoryBackend implements MemoryBackend, Rows, InMemoryBlockRows, InMemoryArchivalRows, InMemoryNoteRows,
        InMemoryMessageRows, InMemoryAgentRows, InMemoryScheduleRows, InMemoryKeyRows, InMemoryIdentityRows,
        InMemoryConversationRows, InMemoryProviderRows, InMemoryCustomToolRows, InMemoryMcpServerRows, InMemoryRunRows,
        InMemoryWorkStateRows, InMemoryCanvasRows, InMemoryArchiveRows, InMemoryGroupRows, InMemoryJobRows,
        InMemoryFolderRows {
    private final Object lock = new Object();
    private final InMemoryUndo undo = new InMemoryUndo();
    private final InMemoryBlockRows.Tables blocks = new InMemoryBlockRows.Tables();
    private final Map<String, InMemoryOwned<ArchivalEntry>> archival = new LinkedHashMap<>();
    private final Map<String, InMemoryOwned<Note>> notes = new LinkedHashMap<>();
    private final Map<Scope, AgentRecord> agents = new LinkedHashMap<>();
    private final Map<Long, ConversationMessage> messages = new LinkedHashMap<>();
    private final Map<String, Schedule> schedules = new LinkedHashMap<>();
    private final Map<String, ApiKey> keys = new LinkedHashMap<>();
    private final Map<String, Identity> identities = new LinkedHashMap<>();
    private final Map<String, Conversation> conversations = new LinkedHashMap<>();
    private final Map<String, ProviderRecord> providers = new LinkedHashMap<>();
    private final Map<String, McpServerRecord> mcpServers = new LinkedHashMap<>();
    private final Map<String, CustomTool> customTools = new LinkedHashMap<>();
    private final InMemoryRunRows.Tables runs = new InMemoryRunRows.Tables();
    private final Map<String, Job> jobs = new LinkedHashMap<>();
    private final InMemoryFolderRows.Tables folders = new InMemoryFolderRows.Tables();
    private final InMemoryArchiveRows.Tables archives = new InMemoryArchiveRows.Tables();
    private final Map<String, Group> groups = new LinkedHashMap<>();
    private final InMemoryWorkStateRows.Tables work = new InMemoryWorkStateRows.Tables();
    private final Map<InMemoryKey, NavigableMap<Integer, CanvasArtefact>> canvases = new LinkedHashMap<>();
    private final List<ChangeEvent> changes = new ArrayList<>();
    /**
     * How many of {@link #changes} are committed. The log shows only those, also to a read on the thread of a
     * write in progress (the store reads its change log that way inside a unit of work), so that nothing
     * following the log sees an event that may yet roll back.
     */
    private int committedChanges;
    private final String id = UUID.randomUUID().toString();

    @Override
    public <T> T write(Function<Rows, T> work) {
        synchronized (lock) {
            undo.clear();
            try {
                T result = work.apply(this);
                committedChanges = changes.size();
                return result;
            } catch (RuntimeException | Error e) {
                undo.rollback();
                throw e;
            } finally {
                undo.clear();
            }
        }
    }

    @Override
    public <T> T read(Function<Rows, T> work) {
        synchronized (lock) {
            return work.apply(this);
        }
    }

    @Override
    public void close() {
    }

    @Override
    public InMemoryUndo undo() {
        return undo;
    }

    @Override
    public InMemoryBlockRows.Tables blockTables() {
        return blocks;
    }

    @Override
    public Map<String, InMemoryOwned<ArchivalEntry>> archivalTable() {
        return archival;
    }

    @Override
    public Map<String, InMemoryOwned<Note>> noteTable() {
        return notes;
    }

    @Override
    public Map<Scope, AgentRecord> agentTable() {
        return agents;
    }

    @Override
    public Map<Long, ConversationMessage> messageTable() {
        return messages;
    }

    @Override
    public Map<String, Schedule> scheduleTable() {
        return schedules;
    }

    @Override
    public Map<String, ApiKey> keyTable() {
        return keys;
    }

    @Override
    public Map<String, Identity> identityTable() {
        return identities;
    }

    @Override
    public Map<String, Conversation> conversationTable() {
        return conversations;
    }

    @Override
    public Map<String, ProviderRecord> providerTable() {
        return providers;
    }

    @Override
    public Map<String, McpServerRecord> mcpServerTable() {
        return mcpServers;
    }

    @Override
    public Map<String, CustomTool> customToolTable() {
        return customTools;
    }

    @Override
    public InMemoryRunRows.Tables runTables() {
        return runs;
    }

    @Override
    public Map<String, Job> jobTable() {
        return jobs;
    }

    @Override
    public InMemoryFolderRows.Tables folderTables() {
        return folders;
    }

    @Override
    public InMemoryArchiveRows.Tables archiveTables() {
        return archives;
    }

    @Override
    public Map<String, Group> groupTable() {
        return groups;
    }

    @Override
    public InMemoryWorkStateRows.Tables workTables() {
        return work;
    }

    @Override
    public Map<InMemoryKey, NavigableMap<Integer, CanvasArtefact>> canvasTable() {
        return canvases;
    }

    @Override
    public void appendChanges(List<NewChange> list) {
        for (NewChange c : list) {
            changes.add(c.withSeq(changes.isEmpty() ? 1 : changes.getLast().seq() + 1));
            undo.push(() -> changes.remove(changes.size() - 1));
        }
    }

    @Override
    public List<ChangeEvent> changesSince(long afterSeq, int max) {
        return changes.subList(0, committedChanges).stream().filter(c -> c.seq() > afterSeq).limit(max).toList();
    }

    @Override
    public List<ChangeEvent> userChangesSince(String userId, long afterSeq, int max) {
        return changes.subList(0, committedChanges).stream().filter(c -> c.seq() > afterSeq && c.userId().equals(userId))
                .limit(max).toList();
    }

    @Override
    public long lastChangeSeq() {
        return committedChanges == 0 ? 0 : changes.get(committedChanges - 1).seq();
    }

    @Override
    public UserUsage usage(String userId) {
        long agentCount = agents.keySet().stream().filter(s -> s.userId().equals(userId)).count();
        List<Block> owned = blocks.blocks().entrySet().stream().filter(e -> e.getKey().userId().equals(userId))
                .map(Map.Entry::getValue).toList();
        List<ArchivalEntry> entries = archival.values().stream().filter(o -> o.scope().userId().equals(userId))
                .map(InMemoryOwned::row).toList();
        List<Note> mine = notes.values().stream().map(InMemoryOwned::row).filter(n -> n.userId().equals(userId)).toList();
        long bytes = owned.stream().mapToLong(b -> utf8(b.value())).sum()
                + entries.stream().mapToLong(e -> utf8(e.content())).sum()
                + mine.stream().mapToLong(n -> utf8(n.content())).sum()
                + folders.files().values().stream().filter(f -> f.userId().equals(userId)).mapToLong(f -> utf8(f.text()))
                        .sum();
        return new UserUsage(agentCount, owned.size(), entries.size(), mine.size(), bytes);
    }

    private static long utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    @Override
    public MemoryStats stats(Scope scope) {
        List<ConversationMessage> mine = messages.values().stream().filter(m -> m.scope().equals(scope)).toList();
        return new MemoryStats(blocks(scope).size(), archivalOf(scope).count(), countNotes(scope.userId()), mine.size(),
                mine.stream().filter(ConversationMessage::inContext).count(),
                mine.stream().map(ConversationMessage::createdAt).max(Comparator.naturalOrder()));
    }

    @Override
    public String storeId() {
        return id;
    }

    @Override
    public String toString() {
        return "InMemoryBackend";
    }
}
