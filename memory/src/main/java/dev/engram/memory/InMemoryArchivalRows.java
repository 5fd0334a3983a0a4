package dev.engram.memory;

import dev.engram.memory.spi.ArchivalRows;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The archival memory of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one
 * lock, and record each change in its one undo log.
 */
interface InMemoryArchivalRows extends ArchivalRows {
    /** Every archival entry by id, with its scope and insertion position. */
    Map<String, InMemoryOwned<ArchivalEntry>> archivalTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    /** The scope's current (not superseded) entries. */
    default Stream<InMemoryOwned<ArchivalEntry>> archivalOf(Scope scope) {
        return archivalTable().values().stream().filter(o -> o.scope().equals(scope) && o.row().isCurrent());
    }

    @Override
    default void putArchival(Scope scope, List<ArchivalEntry> entries) {
        for (ArchivalEntry e : entries) {
            InMemoryOwned<ArchivalEntry> old = archivalTable().get(e.id());
            long pos = old == null ? undo().position() : old.pos();
            undo().put(archivalTable(), e.id(), new InMemoryOwned<>(scope, e, pos));
        }
    }

    @Override
    default boolean deleteArchival(Scope scope, String id) {
        return archival(scope, id).isPresent() && undo().remove(archivalTable(), id);
    }

    @Override
    default Optional<ArchivalEntry> archival(Scope scope, String id) {
        return Optional.ofNullable(archivalTable().get(id)).filter(o -> o.scope().equals(scope)).map(InMemoryOwned::row);
    }

    @Override
    default Optional<ArchivalEntry> archivalByLabel(Scope scope, String label) {
        return archivalTable().values().stream().filter(o -> o.scope().equals(scope)).map(InMemoryOwned::row)
                .filter(e -> e.label().equals(Optional.of(label))).findFirst();
    }

    @Override
    default List<ArchivalEntry> listArchival(Scope scope, int offset, int limit) {
        return archivalOf(scope).sorted(Comparator.comparing((InMemoryOwned<ArchivalEntry> o) -> o.row().createdAt())
                        .thenComparingLong(InMemoryOwned::pos).reversed())
                .skip(offset).limit(limit).map(InMemoryOwned::row).toList();
    }

    @Override
    default Optional<ArchivalEntry> archivalSuperseding(Scope scope, String id) {
        return archivalTable().values().stream().filter(o -> o.scope().equals(scope)).map(InMemoryOwned::row)
                .filter(e -> e.supersedes().equals(Optional.of(id))).findFirst();
    }
}
