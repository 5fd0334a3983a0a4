package dev.engram.memory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The reference {@link MemoryStore}: everything in maps, every operation under one lock, so that each
 * is atomic exactly like a transaction. It defines the intended behaviour in the plainest code and
 * runs the same conformance suite as the SQLite store.
 */
final class InMemoryMemoryStore implements MemoryStore {
    /** A stored block with its owner, history and shares. */
    private static final class StoredBlock {
        final long id;
        final String userId;
        final String agentId;
        final Block block;
        final List<BlockVersion> history;
        final Map<String, MemoryPermission> shares;

        StoredBlock(long id, String userId, String agentId, Block block, List<BlockVersion> history,
                Map<String, MemoryPermission> shares) {
            this.id = id;
            this.userId = userId;
            this.agentId = agentId;
            this.block = block;
            this.history = history;
            this.shares = shares;
        }
    }

    private record StoredEntry(Scope scope, ArchivalEntry entry) {
    }

    private final Object lock = new Object();
    private final Clock clock;
    private final Map<Long, StoredBlock> blocks = new LinkedHashMap<>();
    private final Map<String, StoredEntry> archival = new LinkedHashMap<>();
    private final Map<String, Note> notes = new LinkedHashMap<>();
    private final Map<Scope, AgentRecord> agents = new LinkedHashMap<>();
    private final List<ConversationMessage> messages = new ArrayList<>();
    private final List<ChangeEvent> changes = new ArrayList<>();
    private long nextBlockId = 1;
    private long nextMessageId = 1;
    private long nextSeq = 1;
    private boolean closed;

    InMemoryMemoryStore(Clock clock) {
        this.clock = clock;
    }

    private <T> T locked(Supplier<T> work) {
        synchronized (lock) {
            if (closed) {
                throw MemoryErrors.closed();
            }
            return work.get();
        }
    }

    private Instant now() {
        return SqlTimes.truncate(clock.instant());
    }

    private void change(ChangeEvent.Entity entity, String id, ChangeEvent.Op op, String userId, String agentIdOrNull) {
        changes.add(new ChangeEvent(nextSeq++, entity, id, op, userId, Optional.ofNullable(agentIdOrNull)));
    }

    /** The block as {@code viewer} sees it, own first, then shared. */
    private Optional<StoredBlock> resolve(Scope viewer, String label) {
        StoredBlock shared = null;
        for (StoredBlock b : blocks.values()) {
            if (!b.userId.equals(viewer.userId()) || !b.block.label().equals(label)) {
                continue;
            }
            if (b.agentId.equals(viewer.agentId())) {
                return Optional.of(b);
            }
            if (b.shares.containsKey(viewer.agentId())) {
                shared = b;
            }
        }
        return Optional.ofNullable(shared);
    }

    private static Block view(StoredBlock b, Scope viewer) {
        MemoryPermission p = b.agentId.equals(viewer.agentId()) ? b.block.permission() : b.shares.get(viewer.agentId());
        Block x = b.block;
        return new Block(x.label(), x.description(), x.value(), x.limit(), x.type(), p, x.pinned(), x.version(),
                x.ownerAgentId(), x.createdAt(), x.updatedAt());
    }

    private StoredBlock require(Scope scope, String label) {
        return resolve(scope, label).orElseThrow(() -> MemoryErrors.noBlock(scope, label));
    }

    private StoredBlock requireOwn(Scope scope, String label) {
        StoredBlock b = require(scope, label);
        if (!b.agentId.equals(scope.agentId())) {
            throw MemoryErrors.notOwnBlock(scope, label);
        }
        return b;
    }

    private final BlockStore blockStore = new BlockStore() {
        @Override
        public Block create(Scope scope, NewBlock block) {
            Checks.notNull(scope, "scope");
            Checks.notNull(block, "block");
            return locked(() -> insertBlock(scope, block, "create"));
        }

        @Override
        public Optional<Block> get(Scope scope, String label) {
            Checks.notNull(scope, "scope");
            Checks.notNull(label, "label");
            return locked(() -> resolve(scope, label).map(b -> view(b, scope)));
        }

        @Override
        public List<Block> list(Scope scope) {
            Checks.notNull(scope, "scope");
            return locked(() -> blocks.values().stream()
                    .filter(b -> b.userId.equals(scope.userId())
                            && (b.agentId.equals(scope.agentId()) || b.shares.containsKey(scope.agentId())))
                    .map(b -> view(b, scope))
                    .sorted(Comparator.comparing((Block b) -> !b.pinned()).thenComparing(Block::label))
                    .toList());
        }

        @Override
        public Block append(Scope scope, String label, String text, long expectedVersion) {
            Checks.notNull(scope, "scope");
            Checks.notNull(label, "label");
            Checks.text(text, "text");
            return locked(() -> {
                StoredBlock b = require(scope, label);
                return update(b, scope, b.block.value() + text, expectedVersion, "append");
            });
        }

        @Override
        public Block replace(Scope scope, String label, String value, long expectedVersion) {
            Checks.notNull(scope, "scope");
            Checks.notNull(label, "label");
            Checks.text(value, "value");
            return locked(() -> update(require(scope, label), scope, value, expectedVersion, "replace"));
        }

        @Override
        public void delete(Scope scope, String label, long expectedVersion) {
            Checks.notNull(scope, "scope");
            Checks.notNull(label, "label");
            locked(() -> {
                StoredBlock b = require(scope, label);
                MemoryErrors.checkVersion(label, expectedVersion, b.block.version());
                removeBlock(b);
                return null;
            });
        }

        @Override
        public List<BlockVersion> history(Scope scope, String label) {
            Checks.notNull(scope, "scope");
            Checks.notNull(label, "label");
            return locked(() -> resolve(scope, label).map(b -> List.copyOf(b.history)).orElse(List.of()));
        }

        @Override
        public Block restore(Scope scope, String label, long version, long expectedVersion) {
            Checks.notNull(scope, "scope");
            Checks.notNull(label, "label");
            return locked(() -> {
                StoredBlock b = require(scope, label);
                String value = b.history.stream().filter(v -> v.version() == version).findFirst()
                        .orElseThrow(() -> MemoryErrors.noVersion(label, version, b.block.version())).value();
                return update(b, scope, value, expectedVersion, "restore");
            });
        }

        @Override
        public void share(Scope owner, String label, String agentId, MemoryPermission permission) {
            Checks.notNull(owner, "owner");
            Checks.notNull(label, "label");
            Checks.id(agentId, "agent id");
            Checks.notNull(permission, "permission");
            if (agentId.equals(owner.agentId())) {
                throw MemoryErrors.selfShare(label);
            }
            locked(() -> {
                StoredBlock b = requireOwn(owner, label);
                Scope target = new Scope(owner.userId(), agentId);
                Optional<StoredBlock> existing = resolve(target, label);
                if (existing.isPresent() && existing.get() != b) {
                    throw MemoryErrors.duplicateBlock(target, label);
                }
                b.shares.put(agentId, permission);
                return null;
            });
        }

        @Override
        public boolean unshare(Scope owner, String label, String agentId) {
            Checks.notNull(owner, "owner");
            Checks.notNull(label, "label");
            Checks.id(agentId, "agent id");
            return locked(() -> requireOwn(owner, label).shares.remove(agentId) != null);
        }

        @Override
        public ArchivalEntry archive(Scope scope, String label, boolean keepBlock) {
            Checks.notNull(scope, "scope");
            Checks.notNull(label, "label");
            return locked(() -> archiveBlock(scope, label, keepBlock));
        }

        @Override
        public Block load(Scope scope, String archivalLabel, String blockLabel, int limit) {
            Checks.notNull(scope, "scope");
            Checks.notNull(archivalLabel, "archival label");
            Checks.id(blockLabel, "block label");
            return locked(() -> loadEntry(scope, archivalLabel, blockLabel, limit));
        }

        @Override
        public Swap swap(Scope scope, String outLabel, String inLabel, int limit) {
            Checks.notNull(scope, "scope");
            Checks.notNull(outLabel, "label to archive");
            Checks.id(inLabel, "label to load");
            return locked(() -> {
                // Check everything first, so that a failure changes nothing (there is no rollback here).
                StoredBlock out = requireOwn(scope, outLabel);
                if (out.block.value().isBlank()) {
                    throw new IllegalArgumentException("block '" + outLabel + "' is empty; there is nothing to archive");
                }
                ArchivalEntry in = entryByLabel(scope, inLabel).orElseThrow(() -> MemoryErrors.noArchivalLabel(inLabel));
                if (!inLabel.equals(outLabel) && resolve(scope, inLabel).isPresent()) {
                    throw MemoryErrors.duplicateBlock(scope, inLabel);
                }
                if (limit <= 0) {
                    throw new IllegalArgumentException("block limit must be positive, got " + limit);
                }
                String content = inLabel.equals(outLabel) ? out.block.value() : in.content();
                MemoryErrors.checkLimit(inLabel, content, limit, 0);
                ArchivalEntry archived = archiveBlock(scope, outLabel, false);
                Block loaded = loadEntry(scope, inLabel, inLabel, limit);
                return new Swap(archived, loaded);
            });
        }
    };

    private Block insertBlock(Scope scope, NewBlock nb, String operation) {
        if (resolve(scope, nb.label()).isPresent()) {
            throw MemoryErrors.duplicateBlock(scope, nb.label());
        }
        Instant now = now();
        Block block = new Block(nb.label(), nb.description(), nb.value(), nb.limit(), nb.type(), nb.permission(),
                nb.pinned(), 1, scope.agentId(), now, now);
        List<BlockVersion> history = new ArrayList<>();
        history.add(new BlockVersion(1, nb.value(), operation, now));
        long id = nextBlockId++;
        blocks.put(id, new StoredBlock(id, scope.userId(), scope.agentId(), block, history, new LinkedHashMap<>()));
        change(ChangeEvent.Entity.BLOCK, nb.label(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
        return block;
    }

    private Block update(StoredBlock b, Scope viewer, String value, long expectedVersion, String operation) {
        Block x = b.block;
        MemoryErrors.checkVersion(x.label(), expectedVersion, x.version());
        MemoryErrors.checkLimit(x.label(), value, x.limit(), x.size());
        Instant now = now();
        Block next = new Block(x.label(), x.description(), value, x.limit(), x.type(), x.permission(), x.pinned(),
                x.version() + 1, x.ownerAgentId(), x.createdAt(), now);
        b.history.add(new BlockVersion(next.version(), value, operation, now));
        blocks.put(b.id, new StoredBlock(b.id, b.userId, b.agentId, next, b.history, b.shares));
        change(ChangeEvent.Entity.BLOCK, x.label(), ChangeEvent.Op.UPSERT, b.userId, b.agentId);
        return view(blocks.get(b.id), viewer);
    }

    private void removeBlock(StoredBlock b) {
        blocks.remove(b.id);
        change(ChangeEvent.Entity.BLOCK, b.block.label(), ChangeEvent.Op.DELETE, b.userId, b.agentId);
    }

    private Optional<ArchivalEntry> entryByLabel(Scope scope, String label) {
        return archival.values().stream().filter(e -> e.scope().equals(scope) && e.entry().label().equals(Optional.of(label)))
                .map(StoredEntry::entry).findFirst();
    }

    private ArchivalEntry insertEntry(Scope scope, NewArchivalEntry e, Instant now) {
        if (e.label().isPresent() && entryByLabel(scope, e.label().get()).isPresent()) {
            throw MemoryErrors.duplicateArchival(e.label().get());
        }
        ArchivalEntry entry = new ArchivalEntry(Ids.next("archival"), e.label(), e.content(), e.tags(), now, now);
        archival.put(entry.id(), new StoredEntry(scope, entry));
        change(ChangeEvent.Entity.ARCHIVAL, entry.id(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
        return entry;
    }

    private ArchivalEntry archiveBlock(Scope scope, String label, boolean keepBlock) {
        StoredBlock b = requireOwn(scope, label);
        if (b.block.value().isBlank()) {
            throw new IllegalArgumentException("block '" + label + "' is empty; there is nothing to archive");
        }
        Instant now = now();
        Optional<ArchivalEntry> existing = entryByLabel(scope, label);
        ArchivalEntry entry;
        if (existing.isPresent()) {
            ArchivalEntry old = existing.get();
            entry = new ArchivalEntry(old.id(), old.label(), b.block.value(), old.tags(), old.createdAt(), now);
            archival.put(entry.id(), new StoredEntry(scope, entry));
            change(ChangeEvent.Entity.ARCHIVAL, entry.id(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
        } else {
            entry = insertEntry(scope, NewArchivalEntry.labelled(label, b.block.value(), List.of()), now);
        }
        if (!keepBlock) {
            removeBlock(b);
        }
        return entry;
    }

    private Block loadEntry(Scope scope, String archivalLabel, String blockLabel, int limit) {
        ArchivalEntry entry = entryByLabel(scope, archivalLabel).orElseThrow(() -> MemoryErrors.noArchivalLabel(archivalLabel));
        if (limit <= 0) {
            throw new IllegalArgumentException("block limit must be positive, got " + limit);
        }
        MemoryErrors.checkLimit(blockLabel, entry.content(), limit, 0);
        Block created = insertBlock(scope, NewBlock.builder(blockLabel)
                .description("Loaded from archival memory entry '" + archivalLabel + "'.")
                .value(entry.content()).limit(limit).type(BlockType.WORKING).build(), "load");
        if (archivalLabel.equals(blockLabel)) {
            archival.remove(entry.id());
            change(ChangeEvent.Entity.ARCHIVAL, entry.id(), ChangeEvent.Op.DELETE, scope.userId(), scope.agentId());
        }
        return created;
    }

    private final ArchivalStore archivalStore = new ArchivalStore() {
        @Override
        public ArchivalEntry insert(Scope scope, NewArchivalEntry entry) {
            return insertAll(scope, List.of(entry)).get(0);
        }

        @Override
        public List<ArchivalEntry> insertAll(Scope scope, List<NewArchivalEntry> entries) {
            Checks.notNull(scope, "scope");
            Checks.noNulls(entries, "entries");
            return locked(() -> {
                Set<String> labels = new HashSet<>();
                for (NewArchivalEntry e : entries) {
                    if (e.label().isPresent() && (!labels.add(e.label().get()) || entryByLabel(scope, e.label().get()).isPresent())) {
                        throw MemoryErrors.duplicateArchival(e.label().get());
                    }
                }
                Instant now = now();
                return entries.stream().map(e -> insertEntry(scope, e, now)).toList();
            });
        }

        @Override
        public ArchivalEntry append(Scope scope, String label, String text) {
            Checks.notNull(scope, "scope");
            Checks.notNull(label, "label");
            Checks.text(text, "text");
            return locked(() -> {
                ArchivalEntry e = entryByLabel(scope, label).orElseThrow(() -> MemoryErrors.noArchivalLabel(label));
                ArchivalEntry next = new ArchivalEntry(e.id(), e.label(), e.content() + text, e.tags(), e.createdAt(), now());
                archival.put(e.id(), new StoredEntry(scope, next));
                change(ChangeEvent.Entity.ARCHIVAL, e.id(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
                return next;
            });
        }

        @Override
        public Optional<ArchivalEntry> get(Scope scope, String id) {
            Checks.notNull(scope, "scope");
            Checks.notNull(id, "id");
            return locked(() -> Optional.ofNullable(archival.get(id)).filter(e -> e.scope().equals(scope)).map(StoredEntry::entry));
        }

        @Override
        public Optional<ArchivalEntry> getByLabel(Scope scope, String label) {
            Checks.notNull(scope, "scope");
            Checks.notNull(label, "label");
            return locked(() -> entryByLabel(scope, label));
        }

        @Override
        public boolean delete(Scope scope, String id) {
            Checks.notNull(scope, "scope");
            Checks.notNull(id, "id");
            return locked(() -> {
                StoredEntry e = archival.get(id);
                if (e == null || !e.scope().equals(scope)) {
                    return false;
                }
                archival.remove(id);
                change(ChangeEvent.Entity.ARCHIVAL, id, ChangeEvent.Op.DELETE, scope.userId(), scope.agentId());
                return true;
            });
        }

        @Override
        public List<ArchivalEntry> list(Scope scope, int offset, int limit) {
            Checks.notNull(scope, "scope");
            MemoryErrors.checkPaging(offset, limit);
            return locked(() -> {
                List<ArchivalEntry> mine = new ArrayList<>(archival.values().stream()
                        .filter(e -> e.scope().equals(scope)).map(StoredEntry::entry).toList());
                java.util.Collections.reverse(mine);
                return mine.stream().sorted(Comparator.comparing(ArchivalEntry::createdAt).reversed())
                        .skip(offset).limit(limit).toList();
            });
        }

        @Override
        public long count(Scope scope) {
            Checks.notNull(scope, "scope");
            return locked(() -> archival.values().stream().filter(e -> e.scope().equals(scope)).count());
        }
    };

    private Optional<AgentRecord> agentNamed(String userId, String name) {
        return agents.values().stream().filter(a -> a.scope().userId().equals(userId) && a.name().equals(name)).findFirst();
    }

    private final AgentStore agentStore = new AgentStore() {
        @Override
        public AgentRecord create(Scope scope, String name, String definition) {
            Checks.notNull(scope, "scope");
            MemoryErrors.checkAgent(name, definition);
            return locked(() -> {
                if (agents.containsKey(scope)) {
                    throw MemoryErrors.duplicateAgentId(scope);
                }
                if (agentNamed(scope.userId(), name).isPresent()) {
                    throw MemoryErrors.duplicateAgentName(scope.userId(), name);
                }
                Instant now = now();
                AgentRecord record = new AgentRecord(scope, name, definition, now, now);
                agents.put(scope, record);
                return record;
            });
        }

        @Override
        public AgentRecord update(Scope scope, String name, String definition) {
            Checks.notNull(scope, "scope");
            MemoryErrors.checkAgent(name, definition);
            return locked(() -> {
                AgentRecord existing = Optional.ofNullable(agents.get(scope)).orElseThrow(() -> MemoryErrors.noAgent(scope));
                Optional<AgentRecord> named = agentNamed(scope.userId(), name);
                if (named.isPresent() && !named.get().scope().equals(scope)) {
                    throw MemoryErrors.duplicateAgentName(scope.userId(), name);
                }
                AgentRecord record = new AgentRecord(scope, name, definition, existing.createdAt(), now());
                agents.put(scope, record);
                return record;
            });
        }

        @Override
        public Optional<AgentRecord> get(Scope scope) {
            Checks.notNull(scope, "scope");
            return locked(() -> Optional.ofNullable(agents.get(scope)));
        }

        @Override
        public Optional<AgentRecord> findByName(String userId, String name) {
            Checks.id(userId, "user id");
            Checks.notNull(name, "agent name");
            return locked(() -> agentNamed(userId, name));
        }

        @Override
        public List<AgentRecord> list(String userId) {
            Checks.id(userId, "user id");
            return locked(() -> agents.values().stream().filter(a -> a.scope().userId().equals(userId))
                    .sorted(Comparator.comparing(AgentRecord::name)).toList());
        }

        @Override
        public boolean delete(Scope scope) {
            Checks.notNull(scope, "scope");
            return locked(() -> agents.remove(scope) != null);
        }
    };

    private final NoteStore noteStore = new NoteStore() {
        @Override
        public Note save(String userId, String content) {
            Checks.id(userId, "user id");
            MemoryErrors.checkContent(content, "note content");
            return locked(() -> {
                Instant now = now();
                Note n = new Note(Ids.next("note"), userId, content, now, now);
                notes.put(n.id(), n);
                change(ChangeEvent.Entity.NOTE, n.id(), ChangeEvent.Op.UPSERT, userId, null);
                return n;
            });
        }

        @Override
        public Note update(String userId, String noteId, String content) {
            Checks.id(userId, "user id");
            Checks.notNull(noteId, "note id");
            MemoryErrors.checkContent(content, "note content");
            return locked(() -> {
                Note old = Optional.ofNullable(notes.get(noteId)).filter(n -> n.userId().equals(userId))
                        .orElseThrow(() -> MemoryErrors.noNote(noteId));
                Note n = new Note(noteId, userId, content, old.createdAt(), now());
                notes.put(noteId, n);
                change(ChangeEvent.Entity.NOTE, noteId, ChangeEvent.Op.UPSERT, userId, null);
                return n;
            });
        }

        @Override
        public boolean delete(String userId, String noteId) {
            Checks.id(userId, "user id");
            Checks.notNull(noteId, "note id");
            return locked(() -> {
                Note n = notes.get(noteId);
                if (n == null || !n.userId().equals(userId)) {
                    return false;
                }
                notes.remove(noteId);
                change(ChangeEvent.Entity.NOTE, noteId, ChangeEvent.Op.DELETE, userId, null);
                return true;
            });
        }

        @Override
        public Optional<Note> get(String userId, String noteId) {
            Checks.id(userId, "user id");
            Checks.notNull(noteId, "note id");
            return locked(() -> Optional.ofNullable(notes.get(noteId)).filter(n -> n.userId().equals(userId)));
        }

        @Override
        public List<Note> list(String userId, int offset, int limit) {
            Checks.id(userId, "user id");
            MemoryErrors.checkPaging(offset, limit);
            return locked(() -> {
                List<Note> mine = new ArrayList<>(notes.values().stream().filter(n -> n.userId().equals(userId)).toList());
                java.util.Collections.reverse(mine);
                return mine.stream().sorted(Comparator.comparing(Note::createdAt).reversed()).skip(offset).limit(limit).toList();
            });
        }

        @Override
        public long count(String userId) {
            Checks.id(userId, "user id");
            return locked(() -> notes.values().stream().filter(n -> n.userId().equals(userId)).count());
        }
    };

    private final MessageStore messageStore = new MessageStore() {
        @Override
        public ConversationMessage append(Scope scope, NewMessage message) {
            return appendAll(scope, List.of(message)).get(0);
        }

        @Override
        public List<ConversationMessage> appendAll(Scope scope, List<NewMessage> list) {
            Checks.notNull(scope, "scope");
            Checks.noNulls(list, "messages");
            return locked(() -> {
                Instant now = now();
                List<ConversationMessage> out = new ArrayList<>();
                for (NewMessage m : list) {
                    ConversationMessage c = new ConversationMessage(nextMessageId++, scope.agentId(), scope.userId(),
                            m.sessionId(), m.role(), m.content(), m.toolCalls(), m.toolCallId(), now, true);
                    messages.add(c);
                    change(ChangeEvent.Entity.MESSAGE, Long.toString(c.id()), ChangeEvent.Op.UPSERT, scope.userId(),
                            scope.agentId());
                    out.add(c);
                }
                return out;
            });
        }

        @Override
        public Optional<ConversationMessage> get(Scope scope, long id) {
            Checks.notNull(scope, "scope");
            return locked(() -> messages.stream().filter(m -> m.id() == id && m.scope().equals(scope)).findFirst());
        }

        @Override
        public List<ConversationMessage> list(Scope scope, MessageQuery q) {
            Checks.notNull(scope, "scope");
            Checks.notNull(q, "query");
            return locked(() -> {
                List<ConversationMessage> matching = messages.stream()
                        .filter(m -> m.scope().equals(scope))
                        .filter(m -> q.sessionId().map(s -> s.equals(m.sessionId())).orElse(true))
                        .filter(m -> q.afterId().map(a -> m.id() > a).orElse(true))
                        .filter(m -> q.beforeId().map(b -> m.id() < b).orElse(true))
                        .filter(m -> q.from().map(f -> !m.createdAt().isBefore(f)).orElse(true))
                        .filter(m -> q.until().map(u -> m.createdAt().isBefore(u)).orElse(true))
                        .filter(m -> !q.inContextOnly() || m.inContext())
                        .toList();
                if (q.newestFirst()) {
                    return matching.subList(Math.max(0, matching.size() - q.limit()), matching.size());
                }
                return matching.subList(0, Math.min(q.limit(), matching.size()));
            });
        }

        @Override
        public long count(Scope scope) {
            Checks.notNull(scope, "scope");
            return locked(() -> messages.stream().filter(m -> m.scope().equals(scope)).count());
        }

        @Override
        public int markOutOfContext(Scope scope, Collection<Long> ids) {
            Checks.notNull(scope, "scope");
            Checks.noNulls(ids, "ids");
            return locked(() -> {
                Set<Long> wanted = new HashSet<>(ids);
                int changed = 0;
                for (int i = 0; i < messages.size(); i++) {
                    ConversationMessage m = messages.get(i);
                    if (wanted.contains(m.id()) && m.scope().equals(scope) && m.inContext()) {
                        messages.set(i, new ConversationMessage(m.id(), m.agentId(), m.userId(), m.sessionId(), m.role(),
                                m.content(), m.toolCalls(), m.toolCallId(), m.createdAt(), false));
                        changed++;
                    }
                }
                return changed;
            });
        }
    };

    private final ChangeLog changeLog = new ChangeLog() {
        @Override
        public List<ChangeEvent> since(long afterSeq, int max) {
            if (max <= 0) {
                throw new IllegalArgumentException("max must be positive, got " + max);
            }
            return locked(() -> changes.stream().filter(c -> c.seq() > afterSeq).limit(max).toList());
        }

        @Override
        public long lastSeq() {
            return locked(() -> changes.isEmpty() ? 0 : changes.get(changes.size() - 1).seq());
        }
    };

    @Override
    public BlockStore blocks() {
        return blockStore;
    }

    @Override
    public ArchivalStore archival() {
        return archivalStore;
    }

    @Override
    public NoteStore notes() {
        return noteStore;
    }

    @Override
    public AgentStore agents() {
        return agentStore;
    }

    @Override
    public MessageStore messages() {
        return messageStore;
    }

    @Override
    public ChangeLog changes() {
        return changeLog;
    }

    @Override
    public MemoryStats stats(Scope scope) {
        Checks.notNull(scope, "scope");
        return locked(() -> {
            long blockCount = blocks.values().stream().filter(b -> b.userId.equals(scope.userId())
                    && (b.agentId.equals(scope.agentId()) || b.shares.containsKey(scope.agentId()))).count();
            long entries = archival.values().stream().filter(e -> e.scope().equals(scope)).count();
            long noteCount = notes.values().stream().filter(n -> n.userId().equals(scope.userId())).count();
            List<ConversationMessage> mine = messages.stream().filter(m -> m.scope().equals(scope)).toList();
            return new MemoryStats(blockCount, entries, noteCount, mine.size(),
                    mine.stream().filter(ConversationMessage::inContext).count(),
                    mine.stream().map(ConversationMessage::createdAt).max(Comparator.naturalOrder()));
        });
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
        }
    }

    @Override
    public String toString() {
        return "InMemoryMemoryStore";
    }
}
