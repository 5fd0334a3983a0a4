package dev.engram.memory.spi;

import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Scope;
import java.util.List;
import java.util.Optional;

/**
 * The archival memory of a {@link MemoryBackend}: each scope's long-term entries, current or superseded by a newer one.
 */
public interface ArchivalRows {
    /** Inserts the entries, or replaces those whose id exists, in order. */
    void putArchival(Scope scope, List<ArchivalEntry> entries);

    /** Returns whether the scope had an entry with that id. */
    boolean deleteArchival(Scope scope, String id);

    Optional<ArchivalEntry> archival(Scope scope, String id);

    Optional<ArchivalEntry> archivalByLabel(Scope scope, String label);

    /** The current entries (not superseded), newest first (by creation time, then the later insert first). */
    List<ArchivalEntry> listArchival(Scope scope, int offset, int limit);

    /** The scope's entry that superseded the one with id {@code id}, if one did. */
    Optional<ArchivalEntry> archivalSuperseding(Scope scope, String id);
}
