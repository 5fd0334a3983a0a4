package dev.engram.memory.spi;

import dev.engram.memory.Group;
import java.util.List;
import java.util.Optional;

/**
 * The multi-agent groups of a {@link MemoryBackend}. Optional: the defaults throw.
 */
public interface GroupRows {
    /** Stores a group, replacing the one of its id. Groups are optional, like archives: the defaults of the group methods throw. */
    default void putGroup(Group group) {
        throw noGroups();
    }

    /** The user's group of that id. */
    default Optional<Group> group(String userId, String id) {
        throw noGroups();
    }

    /** The user's groups, oldest first (by creation, then id). */
    default List<Group> listGroups(String userId) {
        throw noGroups();
    }

    /** Removes the user's group; returns whether there was one. */
    default boolean deleteGroup(String userId, String id) {
        throw noGroups();
    }

    private static UnsupportedOperationException noGroups() {
        return new UnsupportedOperationException("this memory backend keeps no groups (it does not implement the group "
                + "methods of Rows)");
    }
}
