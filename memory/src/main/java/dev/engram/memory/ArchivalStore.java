package dev.engram.memory;

import dev.engram.memory.spi.NewChange;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Archival memory: long-term facts and documents of one agent. */
public final class ArchivalStore {
    private final StoreCore store;

    ArchivalStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Inserts an entry.
     *
     * @throws DuplicateException if the label is taken in the scope
     */
    public ArchivalEntry insert(Scope scope, NewArchivalEntry entry) {
        return insertAll(scope, List.of(Checks.notNull(entry, "entry"))).get(0);
    }

    /**
     * Inserts entries in one transaction: all or none.
     *
     * @throws DuplicateException if a label is taken in the scope or given twice
     */
    public List<ArchivalEntry> insertAll(Scope scope, List<NewArchivalEntry> entries) {
        Checks.notNull(scope, "scope");
        Checks.noNulls(entries, "entries");
        if (entries.isEmpty()) {
            return List.of();
        }
        entries.forEach(e -> store.limits().check(e.content(), "archival content"));
        return store.write(rows -> {
            Set<String> labels = new HashSet<>();
            for (NewArchivalEntry e : entries) {
                if (e.label().isPresent()
                        && (!labels.add(e.label().get()) || rows.archivalByLabel(scope, e.label().get()).isPresent())) {
                    throw MemoryErrors.duplicateArchival(e.label().get());
                }
            }
            store.checkQuota(rows, scope.userId(), new UserUsage(0, 0, entries.size(), 0,
                    entries.stream().mapToLong(e -> StoreCore.utf8Bytes(e.content())).sum()));
            Instant now = store.now();
            List<ArchivalEntry> out = new ArrayList<>(entries.size());
            List<NewChange> changes = new ArrayList<>(entries.size());
            for (NewArchivalEntry e : entries) {
                ArchivalEntry entry = new ArchivalEntry(Ids.next("archival"), e.label(), e.content(), e.tags(), now, now,
                        e.metadata(), Optional.empty(), Optional.empty());
                out.add(entry);
                changes.add(new NewChange(ChangeEvent.Entity.ARCHIVAL, entry.id(),
                        ChangeEvent.Op.UPSERT, scope.userId(), Optional.of(scope.agentId())));
            }
            rows.putArchival(scope, out);
            rows.appendChanges(changes);
            return out;
        });
    }

    /**
     * Appends text, exactly as given, to the entry with that label.
     *
     * @throws NotFoundException if there is none
     */
    public ArchivalEntry append(Scope scope, String label, String text) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        Checks.unicode(text, "text");
        return store.write(rows -> {
            ArchivalEntry e = rows.archivalByLabel(scope, label).orElseThrow(() -> MemoryErrors.noArchivalLabel(label));
            String content = e.content() + text;
            store.limits().check(content, "archival entry '" + label + "' with the text appended");
            store.checkQuota(rows, scope.userId(), new UserUsage(0, 0, 0, 0, StoreCore.utf8Bytes(text)));
            ArchivalEntry next = new ArchivalEntry(e.id(), e.label(), content, e.tags(), e.createdAt(), store.now(),
                    e.metadata(), e.validTo(), e.supersedes());
            rows.putArchival(scope, List.of(next));
            StoreCore.record(rows, ChangeEvent.Entity.ARCHIVAL, e.id(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
            return next;
        });
    }

    /**
     * Records that a fact changed: {@code entry} replaces the current entry {@code id}, which keeps its text and is
     * valid until now ({@link ArchivalEntry#validTo()}); the new entry records the id it
     * {@linkplain ArchivalEntry#supersedes() supersedes}. The old entry's label, if it had one, passes to the new
     * entry (a label names the current fact); {@code entry} must then have no label of its own or the same one.
     * Searches find the new entry, and the old one only when they ask for a time at which it held. One unit of work.
     *
     * @throws NotFoundException    if the scope has no such entry
     * @throws SupersededException if it was already superseded
     * @throws DuplicateException   if {@code entry}'s label is taken in the scope by another entry
     */
    public ArchivalEntry supersede(Scope scope, String id, NewArchivalEntry entry) {
        Checks.notNull(scope, "scope");
        Checks.notNull(id, "id");
        Checks.notNull(entry, "entry");
        store.limits().check(entry.content(), "archival content");
        return store.write(rows -> {
            ArchivalEntry old = rows.archival(scope, id).orElseThrow(() -> MemoryErrors.noArchival(id));
            if (!old.isCurrent()) {
                String newest = id;
                for (Optional<ArchivalEntry> newer = rows.archivalSuperseding(scope, id); newer.isPresent();
                        newer = rows.archivalSuperseding(scope, newer.get().id())) {
                    newest = newer.get().id();
                }
                throw new SupersededException("archival entry", id, newest);
            }
            Optional<String> label = entry.label().isPresent() ? entry.label() : old.label();
            if (label.isPresent() && !label.equals(old.label()) && rows.archivalByLabel(scope, label.get()).isPresent()) {
                throw MemoryErrors.duplicateArchival(label.get());
            }
            store.checkQuota(rows, scope.userId(), new UserUsage(0, 0, 1, 0, StoreCore.utf8Bytes(entry.content())));
            Instant now = store.now();
            ArchivalEntry retired = new ArchivalEntry(old.id(), Optional.empty(), old.content(), old.tags(), old.createdAt(),
                    old.updatedAt(), old.metadata(), Optional.of(now), old.supersedes());
            ArchivalEntry next = new ArchivalEntry(Ids.next("archival"), label, entry.content(), entry.tags(), now, now,
                    entry.metadata(), Optional.empty(), Optional.of(old.id()));
            rows.putArchival(scope, List.of(retired, next)); // in this order: the label leaves the old entry first
            rows.appendChanges(List.of(
                    new NewChange(ChangeEvent.Entity.ARCHIVAL, old.id(), ChangeEvent.Op.UPSERT, scope.userId(), Optional.of(scope.agentId())),
                    new NewChange(ChangeEvent.Entity.ARCHIVAL, next.id(), ChangeEvent.Op.UPSERT, scope.userId(), Optional.of(scope.agentId()))));
            return next;
        });
    }

    /**
     * The versions of the fact entry {@code id} belongs to, oldest first: the entries it superseded, itself, and the
     * entries that superseded it, up to the current one.
     *
     * @throws NotFoundException if the scope has no such entry
     */
    public List<ArchivalEntry> history(Scope scope, String id) {
        Checks.notNull(scope, "scope");
        Checks.notNull(id, "id");
        return store.read(rows -> {
            ArchivalEntry at = rows.archival(scope, id).orElseThrow(() -> MemoryErrors.noArchival(id));
            LinkedList<ArchivalEntry> out = new LinkedList<>();
            out.add(at);
            for (ArchivalEntry e = at; e.supersedes().isPresent(); ) {
                Optional<ArchivalEntry> older = rows.archival(scope, e.supersedes().get());
                if (older.isEmpty()) {
                    break; // deleted
                }
                e = older.get();
                out.addFirst(e);
            }
            for (Optional<ArchivalEntry> newer = rows.archivalSuperseding(scope, at.id()); newer.isPresent();
                    newer = rows.archivalSuperseding(scope, newer.get().id())) {
                out.addLast(newer.get());
            }
            return List.copyOf(out);
        });
    }

    /** The entry with that id, if the scope has it. */
    public Optional<ArchivalEntry> get(Scope scope, String id) {
        Checks.notNull(scope, "scope");
        Checks.notNull(id, "id");
        return store.read(rows -> rows.archival(scope, id));
    }

    /** The entry with that label, if the scope has it. */
    public Optional<ArchivalEntry> getByLabel(Scope scope, String label) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        return store.read(rows -> rows.archivalByLabel(scope, label));
    }

    /** Deletes by id; returns whether it existed. */
    public boolean delete(Scope scope, String id) {
        Checks.notNull(scope, "scope");
        Checks.notNull(id, "id");
        return store.write(rows -> {
            boolean deleted = rows.deleteArchival(scope, id);
            if (deleted) {
                StoreCore.record(rows, ChangeEvent.Entity.ARCHIVAL, id, ChangeEvent.Op.DELETE, scope.userId(), scope.agentId());
            }
            return deleted;
        });
    }

    /** The current entries (not superseded ones), newest first; {@code offset} not negative, {@code limit} positive. */
    public List<ArchivalEntry> list(Scope scope, int offset, int limit) {
        Checks.notNull(scope, "scope");
        MemoryErrors.checkPaging(offset, limit);
        return store.read(rows -> rows.listArchival(scope, offset, limit));
    }

    /**
     * The current entries matching {@code filter} (see {@link MemoryFilter}), newest first, {@code offset} and
     * {@code limit} counted among the matches. The filter is evaluated here, on every backend the same way, over the
     * scope's entries read in pages.
     */
    public List<ArchivalEntry> list(Scope scope, MemoryFilter filter, int offset, int limit) {
        Checks.notNull(scope, "scope");
        Checks.notNull(filter, "filter");
        MemoryErrors.checkPaging(offset, limit);
        return store.read(rows -> Paging.matching((o, n) -> rows.listArchival(scope, o, n), e -> filter.matches(
                MemoryFilter.fields(e.metadata(), e.createdAt(), scope.userId(), Optional.of(scope.agentId()))), offset, limit));
    }

    /** How many current entries the scope has. */
    public long count(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(rows -> rows.stats(scope).archivalEntries());
    }
}
