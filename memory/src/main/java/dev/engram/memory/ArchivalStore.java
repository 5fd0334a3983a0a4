package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/** Archival memory: long-term facts and documents of one agent. */
public interface ArchivalStore {
    /**
     * Inserts an entry.
     *
     * @throws DuplicateException if the label is taken in the scope
     */
    ArchivalEntry insert(Scope scope, NewArchivalEntry entry);

    /** Inserts entries in one transaction: all or none. */
    List<ArchivalEntry> insertAll(Scope scope, List<NewArchivalEntry> entries);

    /**
     * Appends text, exactly as given, to the entry with that label.
     *
     * @throws NotFoundException if there is none
     */
    ArchivalEntry append(Scope scope, String label, String text);

    Optional<ArchivalEntry> get(Scope scope, String id);

    Optional<ArchivalEntry> getByLabel(Scope scope, String label);

    /** Deletes by id; returns whether it existed. */
    boolean delete(Scope scope, String id);

    /** Newest first. */
    List<ArchivalEntry> list(Scope scope, int offset, int limit);

    long count(Scope scope);
}
