package dev.engram.memory;

import dev.engram.memory.spi.ArchiveRows;
import java.time.Instant;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The archives of {@link InMemoryBackend}, whose passages are its archival entries. Its methods run inside the
 * backend's write or read, under its one lock, and record each change in its one undo log.
 */
interface InMemoryArchiveRows extends ArchiveRows, InMemoryArchivalRows {
    /**
     * The archives by id, and their attachments to agents by "archive id / agent id" (a user's ids never meet another's:
     * archive ids are unique).
     */
    record Tables(Map<String, Archive> archives, Map<String, InMemoryAttachment> attachments) {
        Tables() {
            this(new LinkedHashMap<>(), new LinkedHashMap<>());
        }
    }

    /** The backend's archives. */
    Tables archiveTables();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putArchive(Archive archive) {
        undo().put(archiveTables().archives(), archive.id(), archive);
    }

    @Override
    default Optional<Archive> archive(String userId, String id) {
        return Optional.ofNullable(archiveTables().archives().get(id)).filter(a -> a.userId().equals(userId));
    }

    @Override
    default List<Archive> listArchives(String userId) {
        return archiveTables().archives().values().stream().filter(a -> a.userId().equals(userId))
                .sorted(Comparator.comparing(Archive::createdAt).thenComparing(Archive::id)).toList();
    }

    @Override
    default boolean deleteArchive(String userId, String id) {
        if (archive(userId, id).isEmpty()) {
            return false;
        }
        for (InMemoryAttachment a : List.copyOf(archiveTables().attachments().values())) {
            if (a.archiveId().equals(id)) {
                undo().remove(archiveTables().attachments(), a.archiveId() + "/" + a.agentId());
            }
        }
        return undo().remove(archiveTables().archives(), id);
    }

    @Override
    default void attachArchive(String userId, String archiveId, String agentId, Instant at) {
        undo().put(archiveTables().attachments(), archiveId + "/" + agentId,
                new InMemoryAttachment(userId, archiveId, agentId, undo().position()));
    }

    @Override
    default boolean detachArchive(String userId, String archiveId, String agentId) {
        InMemoryAttachment a = archiveTables().attachments().get(archiveId + "/" + agentId);
        return a != null && a.userId().equals(userId)
                && undo().remove(archiveTables().attachments(), archiveId + "/" + agentId);
    }

    @Override
    default List<String> archiveAgents(String userId, String archiveId) {
        return archiveTables().attachments().values().stream()
                .filter(a -> a.userId().equals(userId) && a.archiveId().equals(archiveId))
                .sorted(Comparator.comparingLong(InMemoryAttachment::pos)).map(InMemoryAttachment::agentId).toList();
    }

    @Override
    default List<Archive> agentArchives(Scope agent) {
        return archiveTables().attachments().values().stream()
                .filter(a -> a.userId().equals(agent.userId()) && a.agentId().equals(agent.agentId()))
                .sorted(Comparator.comparingLong(InMemoryAttachment::pos)).map(a -> archiveTables().archives().get(a.archiveId()))
                .toList();
    }

    @Override
    default List<String> deleteAllArchival(Scope scope) {
        List<String> ids = archivalTable().values().stream().filter(o -> o.scope().equals(scope)).map(o -> o.row().id())
                .toList();
        ids.forEach(id -> undo().remove(archivalTable(), id));
        return ids;
    }
}
