package dev.engram.memory.spi;

import dev.engram.memory.CanvasArtefact;
import dev.engram.memory.Scope;
import java.util.List;
import java.util.Optional;

/**
 * The canvas artefacts of a {@link MemoryBackend}: each scope's named artefacts, every version kept. Optional: the
 * defaults throw.
 */
public interface CanvasRows {
    /** Stores one version of an artefact (its version is new for its name). Canvases are optional, like runs: the defaults throw. */
    default void insertCanvas(CanvasArtefact artefact) {
        throw noCanvases();
    }

    /** Version {@code version} of the scope's artefact {@code name}. */
    default Optional<CanvasArtefact> canvas(Scope scope, String name, int version) {
        throw noCanvases();
    }

    /** The highest version of the scope's artefact {@code name}; 0 when it has none. */
    default int lastCanvasVersion(Scope scope, String name) {
        throw noCanvases();
    }

    /** Every version of the scope's artefact {@code name}, oldest first. */
    default List<CanvasArtefact> canvasVersions(Scope scope, String name) {
        throw noCanvases();
    }

    /** The newest version of each of the scope's artefacts, by name. */
    default List<CanvasArtefact> listCanvases(Scope scope) {
        throw noCanvases();
    }

    private static UnsupportedOperationException noCanvases() {
        return new UnsupportedOperationException("this memory backend keeps no canvas artefacts (it does not implement the "
                + "canvas methods of Rows)");
    }
}
