package dev.engram.memory;

import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.spi.NewChange;
import dev.engram.memory.spi.Rows;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The reference backend: rows in maps, one lock, and an undo log that rolls a failed write back. It
 * is the plainest statement of what {@link Rows} means, and runs the same conformance suite as SQLite.
 */
final class InMemoryBackend implements MemoryBackend, Rows {
    private record Key(String userId, String agentId, String label) {
        static Key of(Scope owner, String label) {
            return new Key(owner.userId(), owner.agentId(), label);
        }
    }

    /** A row with its owner and its insertion position (for "the later insert first" orders). */
    private record Owned<T>(Scope scope, T row, long pos) {
    }

    private final Object lock = new Object();
    private final Map<Key, Block> blocks = new LinkedHashMap<>();
    private final Map<Key, List<BlockVersion>> versions = new LinkedHashMap<>();
    private final Map<Key, Map<String, MemoryPermission>> shares = new LinkedHashMap<>();
    private final Map<String, Owned<ArchivalEntry>> archival = new LinkedHashMap<>();
    private final Map<String, Owned<Note>> notes = new LinkedHashMap<>();
    private final Map<Scope, AgentRecord> agents = new LinkedHashMap<>();
    private final Map<Long, ConversationMessage> messages = new LinkedHashMap<>();
    private final Map<String, Schedule> schedules = new LinkedHashMap<>();
    /** Keys by their hash. */
    private final Map<String, ApiKey> keys = new LinkedHashMap<>();
    private final Map<String, Identity> identities = new LinkedHashMap<>();
    private final Map<String, Conversation> conversations = new LinkedHashMap<>();
    private final Map<String, ProviderRecord> providers = new LinkedHashMap<>();
    private final Map<String, McpServerRecord> mcpServers = new LinkedHashMap<>();
    private final Map<String, CustomTool> customTools = new LinkedHashMap<>();
    private final Map<String, Run> runs = new LinkedHashMap<>();
    private final Map<String, Step> steps = new LinkedHashMap<>();
    private final Map<String, Job> jobs = new LinkedHashMap<>();
    private final Map<String, Folder> folders = new LinkedHashMap<>();
    private final Map<String, FolderFile> files = new LinkedHashMap<>();
    private final Map<String, FilePassage> passages = new LinkedHashMap<>();
    private final Map<String, Archive> archives = new LinkedHashMap<>();
    private final Map<String, Group> groups = new LinkedHashMap<>();
    /** Archive attachments by "archive id / agent id" (a user's ids never meet another's: archive ids are unique). */
    private final Map<String, Attachment> attachments = new LinkedHashMap<>();
    /** Folder attachments by "folder id / agent id", as archives'. */
    private final Map<String, Attachment> folderAttachments = new LinkedHashMap<>();
    /** Each agent's state of each file, by scope then file id. */
    private final Map<Key, FileState> fileStates = new LinkedHashMap<>();
    /** Each run's kept events by sequence number; a run's map is replaced, never changed in place (the undo log restores it). */
    private final Map<String, NavigableMap<Long, RunEvent>> runEvents = new LinkedHashMap<>();
    /** Each agent's task list; a list is replaced, never changed in place (the undo log restores it). */
    private final Map<Scope, List<TodoItem>> todos = new LinkedHashMap<>();
    private final Map<String, Goal> goals = new LinkedHashMap<>();
    /** Each goal's entries, oldest first; a list is replaced, never changed in place. */
    private final Map<String, List<GoalEntry>> goalEntries = new LinkedHashMap<>();
    /** Canvas artefacts by scope and name, then by version. */
    private final Map<Key, NavigableMap<Integer, CanvasArtefact>> canvases = new LinkedHashMap<>();
    private final List<ChangeEvent> changes = new ArrayList<>();
    /**
     * How many of {@link #changes} are committed. The log shows only those, also to a read on the thread of a
     * write in progress (the store reads its change log that way inside a unit of work), so that nothing
     * following the log sees an event that may yet roll back.
     */
    private int committedChanges;
    private final Deque<Runnable> undo = new ArrayDeque<>();
    private long nextPos = 1;
    private final String id = java.util.UUID.randomUUID().toString();

    @Override
    public <T> T write(Function<Rows, T> work) {
        synchronized (lock) {
            undo.clear();
            try {
                T result = work.apply(this);
                committedChanges = changes.size();
                return result;
            } catch (RuntimeException | Error e) {
                while (!undo.isEmpty()) {
                    undo.pop().run();
                }
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

    private <K, V> void put(Map<K, V> map, K key, V value) {
        boolean had = map.containsKey(key);
        V old = map.put(key, value);
        undo.push(() -> {
            if (had) {
                map.put(key, old);
            } else {
                map.remove(key);
            }
        });
    }

    private <K, V> boolean remove(Map<K, V> map, K key) {
        if (!map.containsKey(key)) {
            return false;
        }
        V old = map.remove(key);
        undo.push(() -> map.put(key, old));
        return true;
    }

    private long position() {
        return nextPos++;
    }

    @Override
    public List<Block> blocks(Scope viewer) {
        List<Block> out = new ArrayList<>();
        blocks.forEach((k, b) -> {
            MemoryPermission shared = shares.getOrDefault(k, Map.of()).get(viewer.agentId());
            if (!k.userId().equals(viewer.userId())) {
                return;
            }
            if (k.agentId().equals(viewer.agentId())) {
                out.add(b);
            } else if (shared != null) {
                out.add(new Block(b.label(), b.description(), b.value(), b.limit(), b.type(), shared, b.pinned(),
                        b.version(), b.ownerAgentId(), b.createdAt(), b.updatedAt()));
            }
        });
        return out;
    }

    @Override
    public void insertBlock(Scope owner, Block block) {
        put(blocks, Key.of(owner, block.label()), block);
    }

    @Override
    public boolean updateBlock(Scope owner, Block block, long expectedVersion) {
        Key key = Key.of(owner, block.label());
        Block old = blocks.get(key);
        if (old == null || old.version() != expectedVersion) {
            return false;
        }
        put(blocks, key, new Block(old.label(), block.description(), block.value(), block.limit(), old.type(),
                block.permission(), old.pinned(), block.version(), old.ownerAgentId(), old.createdAt(), block.updatedAt()));
        return true;
    }

    @Override
    public void deleteBlock(Scope owner, String label) {
        Key key = Key.of(owner, label);
        remove(blocks, key);
        remove(versions, key);
        remove(shares, key);
    }

    @Override
    public void insertBlockVersion(Scope owner, String label, BlockVersion version) {
        Key key = Key.of(owner, label);
        List<BlockVersion> next = new ArrayList<>(versions.getOrDefault(key, List.of()));
        next.add(version);
        put(versions, key, List.copyOf(next));
    }

    @Override
    public List<BlockVersion> blockVersions(Scope owner, String label) {
        return versions.getOrDefault(Key.of(owner, label), List.of());
    }

    @Override
    public void putShare(Scope owner, String label, String agentId, MemoryPermission permission) {
        Map<String, MemoryPermission> next = new LinkedHashMap<>(shares.getOrDefault(Key.of(owner, label), Map.of()));
        next.put(agentId, permission);
        put(shares, Key.of(owner, label), Map.copyOf(next));
    }

    @Override
    public boolean deleteShare(Scope owner, String label, String agentId) {
        Map<String, MemoryPermission> next = new LinkedHashMap<>(shares.getOrDefault(Key.of(owner, label), Map.of()));
        if (next.remove(agentId) == null) {
            return false;
        }
        put(shares, Key.of(owner, label), Map.copyOf(next));
        return true;
    }

    @Override
    public List<String> shareTargets(Scope owner, String label) {
        return shares.getOrDefault(Key.of(owner, label), Map.of()).keySet().stream().sorted().toList();
    }

    /** The scope's current (not superseded) entries. */
    private Stream<Owned<ArchivalEntry>> archivalOf(Scope scope) {
        return archival.values().stream().filter(o -> o.scope().equals(scope) && o.row().isCurrent());
    }

    @Override
    public void putArchival(Scope scope, List<ArchivalEntry> entries) {
        for (ArchivalEntry e : entries) {
            Owned<ArchivalEntry> old = archival.get(e.id());
            put(archival, e.id(), new Owned<>(scope, e, old == null ? position() : old.pos()));
        }
    }

    @Override
    public boolean deleteArchival(Scope scope, String id) {
        return archival(scope, id).isPresent() && remove(archival, id);
    }

    @Override
    public Optional<ArchivalEntry> archival(Scope scope, String id) {
        return Optional.ofNullable(archival.get(id)).filter(o -> o.scope().equals(scope)).map(Owned::row);
    }

    @Override
    public Optional<ArchivalEntry> archivalByLabel(Scope scope, String label) {
        return archival.values().stream().filter(o -> o.scope().equals(scope)).map(Owned::row)
                .filter(e -> e.label().equals(Optional.of(label))).findFirst();
    }

    @Override
    public List<ArchivalEntry> listArchival(Scope scope, int offset, int limit) {
        return archivalOf(scope).sorted(Comparator.comparing((Owned<ArchivalEntry> o) -> o.row().createdAt())
                        .thenComparingLong(Owned::pos).reversed())
                .skip(offset).limit(limit).map(Owned::row).toList();
    }

    @Override
    public void putNote(Note note) {
        Owned<Note> old = notes.get(note.id());
        put(notes, note.id(), new Owned<>(null, note, old == null ? position() : old.pos()));
    }

    @Override
    public boolean deleteNote(String userId, String noteId) {
        return note(userId, noteId).isPresent() && remove(notes, noteId);
    }

    @Override
    public Optional<Note> note(String userId, String noteId) {
        return Optional.ofNullable(notes.get(noteId)).map(Owned::row).filter(n -> n.userId().equals(userId));
    }

    @Override
    public List<Note> listNotes(String userId, int offset, int limit) {
        return notes.values().stream().filter(o -> o.row().userId().equals(userId) && o.row().isCurrent())
                .sorted(Comparator.comparing((Owned<Note> o) -> o.row().createdAt()).thenComparingLong(Owned::pos).reversed())
                .skip(offset).limit(limit).map(Owned::row).toList();
    }

    @Override
    public Optional<Note> noteSuperseding(String userId, String noteId) {
        return notes.values().stream().map(Owned::row)
                .filter(n -> n.userId().equals(userId) && n.supersedes().equals(Optional.of(noteId))).findFirst();
    }

    @Override
    public Optional<ArchivalEntry> archivalSuperseding(Scope scope, String id) {
        return archival.values().stream().filter(o -> o.scope().equals(scope)).map(Owned::row)
                .filter(e -> e.supersedes().equals(Optional.of(id))).findFirst();
    }

    @Override
    public long countNotes(String userId) {
        return notes.values().stream().filter(o -> o.row().userId().equals(userId) && o.row().isCurrent()).count();
    }

    @Override
    public List<ConversationMessage> insertMessages(Scope scope, List<NewMessage> list, Instant at) {
        List<ConversationMessage> out = new ArrayList<>();
        for (NewMessage m : list) {
            ConversationMessage c = new ConversationMessage(position(), scope.agentId(), scope.userId(), m.sessionId(),
                    m.role(), m.content(), m.toolCalls(), m.toolCallId(), at, true, m.toolOutcome(), m.images(), m.reasoning());
            put(messages, c.id(), c);
            out.add(c);
        }
        return out;
    }

    @Override
    public Optional<ConversationMessage> message(Scope scope, long id) {
        return Optional.ofNullable(messages.get(id)).filter(m -> m.scope().equals(scope));
    }

    @Override
    public List<ConversationMessage> listMessages(Scope scope, MessageQuery q) {
        List<ConversationMessage> matching = messages.values().stream()
                .filter(m -> m.scope().equals(scope))
                .filter(m -> q.sessionId().map(s -> s.equals(m.sessionId())).orElse(true))
                .filter(m -> q.afterId().map(a -> m.id() > a).orElse(true))
                .filter(m -> q.beforeId().map(b -> m.id() < b).orElse(true))
                .filter(m -> q.from().map(f -> !m.createdAt().isBefore(f)).orElse(true))
                .filter(m -> q.until().map(u -> m.createdAt().isBefore(u)).orElse(true))
                .filter(m -> !q.inContextOnly() || m.inContext())
                .toList();
        return q.newestFirst() ? matching.subList(Math.max(0, matching.size() - q.limit()), matching.size())
                : matching.subList(0, Math.min(q.limit(), matching.size()));
    }

    @Override
    public boolean updateMessageText(Scope scope, long id, String content, List<MessageToolCall> toolCalls,
            MessageReasoning reasoning) {
        Optional<ConversationMessage> m = message(scope, id);
        m.ifPresent(x -> put(messages, id, new ConversationMessage(x.id(), x.agentId(), x.userId(), x.sessionId(), x.role(),
                content, toolCalls, x.toolCallId(), x.createdAt(), x.inContext(), x.toolOutcome(), x.images(), reasoning)));
        return m.isPresent();
    }

    @Override
    public int markOutOfContext(Scope scope, Collection<Long> ids) {
        int changed = 0;
        for (Long id : new HashSet<>(ids)) {
            Optional<ConversationMessage> m = message(scope, id).filter(ConversationMessage::inContext);
            if (m.isPresent()) {
                ConversationMessage x = m.get();
                put(messages, id, x.withInContext(false));
                changed++;
            }
        }
        return changed;
    }

    @Override
    public void putAgent(AgentRecord agent) {
        put(agents, agent.scope(), agent);
    }

    @Override
    public Optional<AgentRecord> agent(Scope scope) {
        return Optional.ofNullable(agents.get(scope));
    }

    @Override
    public List<AgentRecord> agentsByName(String userId, String name) {
        return agents.values().stream().filter(a -> a.scope().userId().equals(userId) && a.name().equals(name))
                .sorted(Comparator.comparing(AgentRecord::createdAt).thenComparing(a -> a.scope().agentId())).toList();
    }

    @Override
    public List<AgentRecord> listAgents(String userId) {
        return agents.values().stream().filter(a -> a.scope().userId().equals(userId))
                .sorted(Comparator.comparing(AgentRecord::name)).toList();
    }

    @Override
    public boolean deleteAgent(Scope scope) {
        return remove(agents, scope);
    }

    @Override
    public void insertSchedule(Schedule schedule) {
        put(schedules, schedule.id(), schedule);
    }

    @Override
    public Optional<Schedule> schedule(String userId, String id) {
        return Optional.ofNullable(schedules.get(id)).filter(s -> s.scope().userId().equals(userId));
    }

    @Override
    public List<Schedule> listSchedules(String userId) {
        return schedules.values().stream().filter(s -> s.scope().userId().equals(userId)).toList();
    }

    @Override
    public List<Schedule> dueSchedules(Instant now, int max) {
        return schedules.values().stream()
                .filter(s -> s.active() && !s.nextRunAt().orElseThrow().isAfter(now)
                        && s.claimedUntil().map(c -> !c.isAfter(now)).orElse(true))
                .sorted(Comparator.comparing((Schedule s) -> s.nextRunAt().orElseThrow()).thenComparing(Schedule::id))
                .limit(max).toList();
    }

    @Override
    public boolean updateSchedule(Schedule schedule, long expectedVersion) {
        Schedule old = schedules.get(schedule.id());
        if (old == null || old.version() != expectedVersion || !old.scope().userId().equals(schedule.scope().userId())) {
            return false;
        }
        put(schedules, schedule.id(), schedule);
        return true;
    }

    @Override
    public void insertKey(ApiKey key, String hash) {
        put(keys, hash, key);
    }

    @Override
    public Optional<ApiKey> keyByHash(String hash) {
        return Optional.ofNullable(keys.get(hash));
    }

    @Override
    public List<ApiKey> listKeys() {
        return List.copyOf(keys.values());
    }

    @Override
    public boolean deleteKey(String id) {
        return keys.entrySet().stream().filter(e -> e.getValue().id().equals(id)).map(Map.Entry::getKey).findFirst()
                .map(hash -> remove(keys, hash)).orElse(false);
    }

    @Override
    public void putIdentity(Identity identity) {
        put(identities, identity.userId(), identity);
    }

    @Override
    public Optional<Identity> identity(String userId) {
        return Optional.ofNullable(identities.get(userId));
    }

    @Override
    public List<Identity> listIdentities() {
        return identities.values().stream().sorted(Comparator.comparing(Identity::createdAt)
                .thenComparing(Identity::userId)).toList();
    }

    @Override
    public boolean deleteIdentity(String userId) {
        return remove(identities, userId);
    }

    @Override
    public void putConversation(Conversation conversation) {
        put(conversations, conversation.id(), conversation);
    }

    @Override
    public Optional<Conversation> conversation(String id) {
        return Optional.ofNullable(conversations.get(id));
    }

    @Override
    public List<Conversation> listConversations(String userId) {
        return conversations.values().stream().filter(c -> c.userId().equals(userId))
                .sorted(Comparator.comparing(Conversation::createdAt).thenComparing(Conversation::id)).toList();
    }

    @Override
    public boolean deleteConversation(String id) {
        return remove(conversations, id);
    }

    @Override
    public void putProvider(ProviderRecord provider) {
        put(providers, provider.id(), provider);
    }

    @Override
    public Optional<ProviderRecord> provider(String id) {
        return Optional.ofNullable(providers.get(id));
    }

    @Override
    public List<ProviderRecord> listProviders() {
        return providers.values().stream().sorted(Comparator.comparing(ProviderRecord::createdAt)
                .thenComparing(ProviderRecord::id)).toList();
    }

    @Override
    public boolean deleteProvider(String id) {
        return remove(providers, id);
    }

    /** An archive attached to an agent, in insertion order. */
    private record Attachment(String userId, String archiveId, String agentId, long pos) {
    }

    @Override
    public void putArchive(Archive archive) {
        put(archives, archive.id(), archive);
    }

    @Override
    public Optional<Archive> archive(String userId, String id) {
        return Optional.ofNullable(archives.get(id)).filter(a -> a.userId().equals(userId));
    }

    @Override
    public List<Archive> listArchives(String userId) {
        return archives.values().stream().filter(a -> a.userId().equals(userId))
                .sorted(Comparator.comparing(Archive::createdAt).thenComparing(Archive::id)).toList();
    }

    @Override
    public boolean deleteArchive(String userId, String id) {
        if (archive(userId, id).isEmpty()) {
            return false;
        }
        for (Attachment a : List.copyOf(attachments.values())) {
            if (a.archiveId().equals(id)) {
                remove(attachments, a.archiveId() + "/" + a.agentId());
            }
        }
        return remove(archives, id);
    }

    @Override
    public void attachArchive(String userId, String archiveId, String agentId, Instant at) {
        put(attachments, archiveId + "/" + agentId, new Attachment(userId, archiveId, agentId, position()));
    }

    @Override
    public boolean detachArchive(String userId, String archiveId, String agentId) {
        Attachment a = attachments.get(archiveId + "/" + agentId);
        return a != null && a.userId().equals(userId) && remove(attachments, archiveId + "/" + agentId);
    }

    @Override
    public List<String> archiveAgents(String userId, String archiveId) {
        return attachments.values().stream().filter(a -> a.userId().equals(userId) && a.archiveId().equals(archiveId))
                .sorted(Comparator.comparingLong(Attachment::pos)).map(Attachment::agentId).toList();
    }

    @Override
    public List<Archive> agentArchives(Scope agent) {
        return attachments.values().stream().filter(a -> a.userId().equals(agent.userId()) && a.agentId().equals(agent.agentId()))
                .sorted(Comparator.comparingLong(Attachment::pos)).map(a -> archives.get(a.archiveId())).toList();
    }

    @Override
    public List<String> deleteAllArchival(Scope scope) {
        List<String> ids = archival.values().stream().filter(o -> o.scope().equals(scope)).map(o -> o.row().id()).toList();
        ids.forEach(id -> remove(archival, id));
        return ids;
    }

    @Override
    public void putCustomTool(CustomTool tool) {
        put(customTools, tool.id(), tool);
    }

    @Override
    public Optional<CustomTool> customTool(String id) {
        return Optional.ofNullable(customTools.get(id));
    }

    @Override
    public List<CustomTool> listCustomTools(String userId) {
        return customTools.values().stream().filter(t -> t.userId().equals(userId))
                .sorted(Comparator.comparing(CustomTool::createdAt).thenComparing(CustomTool::id)).toList();
    }

    @Override
    public boolean deleteCustomTool(String id) {
        return remove(customTools, id);
    }

    @Override
    public void putMcpServer(McpServerRecord server) {
        put(mcpServers, server.id(), server);
    }

    @Override
    public Optional<McpServerRecord> mcpServer(String id) {
        return Optional.ofNullable(mcpServers.get(id));
    }

    @Override
    public List<McpServerRecord> listMcpServers() {
        return mcpServers.values().stream().sorted(Comparator.comparing(McpServerRecord::createdAt)
                .thenComparing(McpServerRecord::id)).toList();
    }

    @Override
    public boolean deleteMcpServer(String id) {
        return remove(mcpServers, id);
    }

    @Override
    public void putFolder(Folder folder) {
        put(folders, folder.id(), folder);
    }

    @Override
    public Optional<Folder> folder(String userId, String id) {
        return Optional.ofNullable(folders.get(id)).filter(f -> f.userId().equals(userId));
    }

    @Override
    public List<Folder> listFolders(String userId) {
        return folders.values().stream().filter(f -> f.userId().equals(userId))
                .sorted(Comparator.comparing(Folder::createdAt).thenComparing(Folder::id)).toList();
    }

    @Override
    public boolean deleteFolder(String userId, String id) {
        if (folder(userId, id).isEmpty()) {
            return false;
        }
        for (Attachment a : List.copyOf(folderAttachments.values())) {
            if (a.archiveId().equals(id)) {
                detachFolder(userId, id, a.agentId());
            }
        }
        return remove(folders, id);
    }

    @Override
    public void attachFolder(String userId, String folderId, String agentId, Instant at) {
        put(folderAttachments, folderId + "/" + agentId, new Attachment(userId, folderId, agentId, position()));
    }

    @Override
    public boolean detachFolder(String userId, String folderId, String agentId) {
        for (Map.Entry<Key, FileState> e : List.copyOf(fileStates.entrySet())) {
            FileState s = e.getValue();
            if (s.userId().equals(userId) && s.agentId().equals(agentId) && s.folderId().equals(folderId)) {
                remove(fileStates, e.getKey());
            }
        }
        Attachment a = folderAttachments.get(folderId + "/" + agentId);
        return a != null && a.userId().equals(userId) && remove(folderAttachments, folderId + "/" + agentId);
    }

    @Override
    public List<String> folderAgents(String userId, String folderId) {
        return folderAttachments.values().stream().filter(a -> a.userId().equals(userId) && a.archiveId().equals(folderId))
                .sorted(Comparator.comparingLong(Attachment::pos)).map(Attachment::agentId).toList();
    }

    @Override
    public List<Folder> agentFolders(Scope agent) {
        return folderAttachments.values().stream()
                .filter(a -> a.userId().equals(agent.userId()) && a.agentId().equals(agent.agentId()))
                .sorted(Comparator.comparingLong(Attachment::pos)).map(a -> folders.get(a.archiveId())).toList();
    }

    @Override
    public void putFileState(FileState state) {
        put(fileStates, new Key(state.userId(), state.agentId(), state.fileId()), state);
    }

    @Override
    public List<FileState> fileStates(Scope agent) {
        return fileStates.values().stream().filter(s -> s.userId().equals(agent.userId()) && s.agentId().equals(agent.agentId()))
                .toList();
    }

    @Override
    public void putFile(FolderFile file) {
        put(files, file.id(), file);
    }

    @Override
    public Optional<FolderFile> file(String userId, String id) {
        return Optional.ofNullable(files.get(id)).filter(f -> f.userId().equals(userId));
    }

    @Override
    public List<FolderFile> listFiles(String userId, String folderId) {
        return files.values().stream().filter(f -> f.userId().equals(userId) && f.folderId().equals(folderId))
                .sorted(Comparator.comparing(FolderFile::createdAt).thenComparing(FolderFile::id)).toList();
    }

    @Override
    public boolean deleteFile(String userId, String id) {
        if (file(userId, id).isEmpty()) {
            return false;
        }
        passageIds(userId, id).forEach(p -> remove(passages, p));
        for (Map.Entry<Key, FileState> e : List.copyOf(fileStates.entrySet())) {
            if (e.getValue().fileId().equals(id) && e.getValue().userId().equals(userId)) {
                remove(fileStates, e.getKey());
            }
        }
        return remove(files, id);
    }

    @Override
    public void insertPassages(List<FilePassage> list) {
        list.forEach(p -> put(passages, p.id(), p));
    }

    @Override
    public Optional<FilePassage> passage(String userId, String id) {
        return Optional.ofNullable(passages.get(id)).filter(p -> p.userId().equals(userId));
    }

    @Override
    public List<FilePassage> listPassages(String userId, String folderId, int offset, int limit) {
        Map<String, Integer> order = new java.util.HashMap<>();
        List<FolderFile> inFolder = listFiles(userId, folderId);
        for (int i = 0; i < inFolder.size(); i++) {
            order.put(inFolder.get(i).id(), i);
        }
        return passages.values().stream().filter(p -> order.containsKey(p.fileId()))
                .sorted(Comparator.comparing((FilePassage p) -> order.get(p.fileId())).thenComparingInt(FilePassage::position))
                .skip(offset).limit(limit).toList();
    }

    @Override
    public List<String> passageIds(String userId, String fileId) {
        return passages.values().stream().filter(p -> p.userId().equals(userId) && p.fileId().equals(fileId))
                .sorted(Comparator.comparingInt(FilePassage::position)).map(FilePassage::id).toList();
    }

    @Override
    public long countPassages(String userId, String folderId) {
        return passages.values().stream().filter(p -> p.userId().equals(userId) && p.folderId().equals(folderId)).count();
    }

    @Override
    public void putGroup(Group group) {
        put(groups, group.id(), group);
    }

    @Override
    public Optional<Group> group(String userId, String id) {
        return Optional.ofNullable(groups.get(id)).filter(g -> g.userId().equals(userId));
    }

    @Override
    public List<Group> listGroups(String userId) {
        return groups.values().stream().filter(g -> g.userId().equals(userId))
                .sorted(Comparator.comparing(Group::createdAt).thenComparing(Group::id)).toList();
    }

    @Override
    public boolean deleteGroup(String userId, String id) {
        return group(userId, id).isPresent() && remove(groups, id);
    }

    @Override
    public void putJob(Job job) {
        put(jobs, job.id(), job);
    }

    @Override
    public Optional<Job> job(String id) {
        return Optional.ofNullable(jobs.get(id));
    }

    @Override
    public List<Job> listJobs(String userId, int limit) {
        return jobs.values().stream().filter(j -> j.userId().equals(userId))
                .sorted(Comparator.comparing(Job::createdAt).thenComparing(Job::id).reversed()).limit(limit).toList();
    }

    @Override
    public boolean deleteJob(String id) {
        return remove(jobs, id);
    }

    @Override
    public List<Job> unfinishedJobs() {
        return jobs.values().stream().filter(j -> j.status().isActive())
                .sorted(Comparator.comparing(Job::createdAt).thenComparing(Job::id)).toList();
    }

    @Override
    public void putRun(Run run) {
        put(runs, run.id(), run);
    }

    @Override
    public Optional<Run> run(String id) {
        return Optional.ofNullable(runs.get(id));
    }

    @Override
    public Optional<Run> latestRun(String userId, String agentId, String conversationId) {
        return runs.values().stream().filter(r -> r.userId().equals(userId) && r.agentId().equals(agentId)
                && r.conversationId().equals(conversationId))
                .max(Comparator.comparing(Run::createdAt).thenComparing(Run::id));
    }

    @Override
    public void appendRunEvents(String runId, List<RunEvent> events) {
        TreeMap<Long, RunEvent> next = new TreeMap<>(runEvents.getOrDefault(runId, new TreeMap<>()));
        events.forEach(e -> next.put(e.seq(), e));
        put(runEvents, runId, next);
    }

    @Override
    public List<RunEvent> runEvents(String runId, long afterSeq, int limit) {
        return runEvents.getOrDefault(runId, new TreeMap<>()).tailMap(afterSeq, false).values().stream().limit(limit).toList();
    }

    @Override
    public long lastRunSeq(String runId) {
        NavigableMap<Long, RunEvent> events = runEvents.get(runId);
        return events == null || events.isEmpty() ? 0 : events.lastKey();
    }

    @Override
    public void deleteRunEvents(String runId, long throughSeq) {
        NavigableMap<Long, RunEvent> events = runEvents.get(runId);
        if (events != null) {
            TreeMap<Long, RunEvent> next = new TreeMap<>(events.tailMap(throughSeq, false));
            put(runEvents, runId, next);
        }
    }

    @Override
    public int deleteRuns(Instant endedBefore, Instant staleBefore) {
        List<String> gone = runs.values().stream().filter(r -> r.completedAt().map(t -> t.isBefore(endedBefore))
                .orElse(r.updatedAt().isBefore(staleBefore))).map(Run::id).toList();
        gone.forEach(this::deleteRun);
        return gone.size();
    }

    @Override
    public List<Run> userRuns(String userId) {
        return runs.values().stream().filter(r -> r.userId().equals(userId))
                .sorted(Comparator.comparing(Run::createdAt).thenComparing(Run::id)).toList();
    }

    @Override
    public boolean deleteRun(String id) {
        remove(runEvents, id);
        steps.values().stream().filter(s -> s.runId().equals(id)).map(Step::id).toList().forEach(s -> remove(steps, s));
        return remove(runs, id);
    }

    @Override
    public void putSteps(List<Step> list) {
        list.forEach(s -> put(steps, s.id(), s));
    }

    @Override
    public Optional<Step> step(String id) {
        return Optional.ofNullable(steps.get(id));
    }

    @Override
    public List<Step> runSteps(String runId) {
        return steps.values().stream().filter(s -> s.runId().equals(runId))
                .sorted(Comparator.comparing(Step::startedAt).thenComparing(Step::id)).toList();
    }

    @Override
    public List<Step> userSteps(String userId) {
        return steps.values().stream().filter(s -> s.userId().equals(userId))
                .sorted(Comparator.comparing(Step::startedAt).thenComparing(Step::id)).toList();
    }

    @Override
    public List<TodoItem> todos(Scope scope) {
        return todos.getOrDefault(scope, List.of());
    }

    @Override
    public void replaceTodos(Scope scope, List<TodoItem> list, Instant at) {
        put(todos, scope, List.copyOf(list));
    }

    @Override
    public void putGoal(Goal goal) {
        put(goals, goal.id(), goal); // a LinkedHashMap keeps a replaced key in its place: goals stay in creation order
    }

    @Override
    public Optional<Goal> goal(String id) {
        return Optional.ofNullable(goals.get(id));
    }

    @Override
    public List<Goal> goals(Scope scope) {
        return goals.values().stream().filter(g -> g.scope().equals(scope)).toList();
    }

    @Override
    public void insertGoalEntry(Scope scope, GoalEntry entry) {
        List<GoalEntry> next = new ArrayList<>(goalEntries.getOrDefault(entry.goalId(), List.of()));
        next.add(entry);
        put(goalEntries, entry.goalId(), List.copyOf(next));
    }

    @Override
    public List<GoalEntry> goalEntries(String goalId, GoalEntry.Kind kind, int limit) {
        List<GoalEntry> all = goalEntries.getOrDefault(goalId, List.of());
        List<GoalEntry> out = new ArrayList<>();
        for (int i = all.size() - 1; i >= 0 && out.size() < limit; i--) {
            if (all.get(i).kind() == kind) {
                out.add(all.get(i));
            }
        }
        return out;
    }

    @Override
    public int countGoalEntries(String goalId) {
        return goalEntries.getOrDefault(goalId, List.of()).size();
    }

    @Override
    public void insertCanvas(CanvasArtefact a) {
        Key key = Key.of(a.scope(), a.name());
        TreeMap<Integer, CanvasArtefact> next = new TreeMap<>(canvases.getOrDefault(key, new TreeMap<>()));
        next.put(a.version(), a);
        put(canvases, key, next);
    }

    @Override
    public Optional<CanvasArtefact> canvas(Scope scope, String name, int version) {
        return Optional.ofNullable(canvases.getOrDefault(Key.of(scope, name), new TreeMap<>()).get(version));
    }

    @Override
    public int lastCanvasVersion(Scope scope, String name) {
        NavigableMap<Integer, CanvasArtefact> versions = canvases.get(Key.of(scope, name));
        return versions == null || versions.isEmpty() ? 0 : versions.lastKey();
    }

    @Override
    public List<CanvasArtefact> canvasVersions(Scope scope, String name) {
        return List.copyOf(canvases.getOrDefault(Key.of(scope, name), new TreeMap<>()).values());
    }

    @Override
    public List<CanvasArtefact> listCanvases(Scope scope) {
        return canvases.entrySet().stream().filter(e -> e.getKey().userId().equals(scope.userId())
                        && e.getKey().agentId().equals(scope.agentId()) && !e.getValue().isEmpty())
                .map(e -> e.getValue().lastEntry().getValue()).sorted(Comparator.comparing(CanvasArtefact::name)).toList();
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
    public long lastChangeSeq() {
        return committedChanges == 0 ? 0 : changes.get(committedChanges - 1).seq();
    }

    @Override
    public UserUsage usage(String userId) {
        long agentCount = agents.keySet().stream().filter(s -> s.userId().equals(userId)).count();
        List<Block> owned = blocks.entrySet().stream().filter(e -> e.getKey().userId().equals(userId))
                .map(Map.Entry::getValue).toList();
        List<ArchivalEntry> entries = archival.values().stream().filter(o -> o.scope().userId().equals(userId))
                .map(Owned::row).toList();
        List<Note> mine = notes.values().stream().map(Owned::row).filter(n -> n.userId().equals(userId)).toList();
        long bytes = owned.stream().mapToLong(b -> utf8(b.value())).sum()
                + entries.stream().mapToLong(e -> utf8(e.content())).sum() + mine.stream().mapToLong(n -> utf8(n.content())).sum()
                + files.values().stream().filter(f -> f.userId().equals(userId)).mapToLong(f -> utf8(f.text())).sum();
        return new UserUsage(agentCount, owned.size(), entries.size(), mine.size(), bytes);
    }

    private static long utf8(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
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
