package dev.engram.memory;

import dev.engram.memory.spi.GroupRows;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The groups of {@link InMemoryBackend}. Its methods run inside the backend's write or read, under its one lock, and
 * record each change in its one undo log.
 */
interface InMemoryGroupRows extends GroupRows {
    /** Every group by id. */
    Map<String, Group> groupTable();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putGroup(Group group) {
        undo().put(groupTable(), group.id(), group);
    }

    @Override
    default Optional<Group> group(String userId, String id) {
        return Optional.ofNullable(groupTable().get(id)).filter(g -> g.userId().equals(userId));
    }

    @Override
    default List<Group> listGroups(String userId) {
        return groupTable().values().stream().filter(g -> g.userId().equals(userId))
                .sorted(Comparator.comparing(Group::createdAt).thenComparing(Group::id)).toList();
    }

    @Override
    default boolean deleteGroup(String userId, String id) {
        return group(userId, id).isPresent() && undo().remove(groupTable(), id);
    }
}
