package dev.engram.memory;

import dev.engram.memory.spi.CanvasRows;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The canvas artefacts of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one
 * lock, and record each change in its one undo log.
 */
interface InMemoryCanvasRows extends CanvasRows {
    /**
     * Every artefact by scope and name, then by version; a name's map is replaced, never changed in place (the undo log
     * restores it).
     */
    Map<InMemoryKey, NavigableMap<Integer, CanvasArtefact>> canvasTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void insertCanvas(CanvasArtefact a) {
        InMemoryKey key = InMemoryKey.of(a.scope(), a.name());
        TreeMap<Integer, CanvasArtefact> next = new TreeMap<>(canvasTable().getOrDefault(key, new TreeMap<>()));
        next.put(a.version(), a);
        undo().put(canvasTable(), key, next);
    }

    @Override
    default Optional<CanvasArtefact> canvas(Scope scope, String name, int version) {
        return Optional.ofNullable(canvasTable().getOrDefault(InMemoryKey.of(scope, name), new TreeMap<>()).get(version));
    }

    @Override
    default int lastCanvasVersion(Scope scope, String name) {
        NavigableMap<Integer, CanvasArtefact> versions = canvasTable().get(InMemoryKey.of(scope, name));
        return versions == null || versions.isEmpty() ? 0 : versions.lastKey();
    }

    @Override
    default List<CanvasArtefact> canvasVersions(Scope scope, String name) {
        return List.copyOf(canvasTable().getOrDefault(InMemoryKey.of(scope, name), new TreeMap<>()).values());
    }

    @Override
    default List<CanvasArtefact> listCanvases(Scope scope) {
        return canvasTable().entrySet().stream().filter(e -> e.getKey().userId().equals(scope.userId())
                        && e.getKey().agentId().equals(scope.agentId()) && !e.getValue().isEmpty())
                .map(e -> e.getValue().lastEntry().getValue()).sorted(Comparator.comparing(CanvasArtefact::name))
                .toList();
    }
}
