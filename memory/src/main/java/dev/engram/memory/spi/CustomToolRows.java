package dev.engram.memory.spi;

import dev.engram.memory.CustomTool;
import java.util.List;
import java.util.Optional;

/**
 * The tools each user writes from source, in a {@link MemoryBackend}. Optional: the defaults throw.
 */
public interface CustomToolRows {
    /** Stores a user's tool written from source, replacing the one of its id. Optional: the defaults throw. */
    default void putCustomTool(CustomTool tool) {
        throw noCustomTools();
    }

    /** The custom tool of that id, whoever's it is. */
    default Optional<CustomTool> customTool(String id) {
        throw noCustomTools();
    }

    /** The user's custom tools, oldest first. */
    default List<CustomTool> listCustomTools(String userId) {
        throw noCustomTools();
    }

    /** Removes a custom tool; returns whether there was one. */
    default boolean deleteCustomTool(String id) {
        throw noCustomTools();
    }

    private static UnsupportedOperationException noCustomTools() {
        return new UnsupportedOperationException("this memory backend keeps no custom tools (it does not implement the "
                + "custom tool methods of Rows)");
    }
}
