package dev.engram.memory.spi;

import dev.engram.memory.Archive;
import dev.engram.memory.Scope;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The archives of a {@link MemoryBackend}: a user's named collections of archival entries, attached to the user's
 * agents. Optional: the defaults throw.
 */
public interface ArchiveRows {
    /**
     * Stores an archive, replacing the one of its id. Archives are optional, like runs: the defaults of the archive
     * methods throw. An archive's passages are archival entries in its {@linkplain Archive#scope() scope}.
     */
    default void putArchive(Archive archive) {
        throw noArchives();
    }

    /** The user's archive of that id. */
    default Optional<Archive> archive(String userId, String id) {
        throw noArchives();
    }

    /** The user's archives, oldest first (by creation, then id). */
    default List<Archive> listArchives(String userId) {
        throw noArchives();
    }

    /** Removes the user's archive and its attachments to agents (not its passages); returns whether there was one. */
    default boolean deleteArchive(String userId, String id) {
        throw noArchives();
    }

    /** Attaches the user's archive to the user's agent, at {@code at}; the store has checked that it is not attached yet. */
    default void attachArchive(String userId, String archiveId, String agentId, Instant at) {
        throw noArchives();
    }

    /** Detaches the archive from the agent; returns whether it was attached. */
    default boolean detachArchive(String userId, String archiveId, String agentId) {
        throw noArchives();
    }

    /** The agents the user's archive is attached to, the earliest attached first. */
    default List<String> archiveAgents(String userId, String archiveId) {
        throw noArchives();
    }

    /** The archives attached to the agent, the earliest attached first. */
    default List<Archive> agentArchives(Scope agent) {
        throw noArchives();
    }

    /** Removes every archival entry of the scope, current and superseded; returns their ids. */
    default List<String> deleteAllArchival(Scope scope) {
        throw noArchives();
    }

    private static UnsupportedOperationException noArchives() {
        return new UnsupportedOperationException("this memory backend keeps no archives (it does not implement the archive "
                + "methods of Rows)");
    }
}
