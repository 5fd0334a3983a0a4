package dev.engram.memory;

import dev.engram.memory.spi.CustomToolRows;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The custom tools of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one
 * lock, and record each change in its one undo log.
 */
interface InMemoryCustomToolRows extends CustomToolRows {
    /** Every custom tool by id. */
    Map<String, CustomTool> customToolTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putCustomTool(CustomTool tool) {
        undo().put(customToolTable(), tool.id(), tool);
    }

    @Override
    default Optional<CustomTool> customTool(String id) {
        return Optional.ofNullable(customToolTable().get(id));
    }

    @Override
    default List<CustomTool> listCustomTools(String userId) {
        return customToolTable().values().stream().filter(t -> t.userId().equals(userId))
                .sorted(Comparator.comparing(CustomTool::createdAt).thenComparing(CustomTool::id)).toList();
    }

    @Override
    default boolean deleteCustomTool(String id) {
        return undo().remove(customToolTable(), id);
    }
}
