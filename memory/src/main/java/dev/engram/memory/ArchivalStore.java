package dev.engram.memory;

import dev.engram.memory.spi.NewChange;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
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
                ArchivalEntry entry = new ArchivalEntry(Ids.next("archival"), e.label(), e.content(), e.tags(), now, now);
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
            ArchivalEntry next = new ArchivalEntry(e.id(), e.label(), content, e.tags(), e.createdAt(), store.now());
            rows.putArchival(scope, List.of(next));
            StoreCore.record(rows, ChangeEvent.Entity.ARCHIVAL, e.id(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
            return next;
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

    /** Newest first; {@code offset} not negative, {@code limit} positive. */
    public List<ArchivalEntry> list(Scope scope, int offset, int limit) {
        Checks.notNull(scope, "scope");
        MemoryErrors.checkPaging(offset, limit);
        return store.read(rows -> rows.listArchival(scope, offset, limit));
    }

    /** How many entries the scope has. */
    public long count(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(rows -> rows.stats(scope).archivalEntries());
    }
}
