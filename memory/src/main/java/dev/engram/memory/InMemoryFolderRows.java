package dev.engram.memory;

import dev.engram.memory.spi.FolderRows;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The folders, their files and passages, and the agents' file states, of {@link InMemoryBackend}. Its methods run
 * inside the backend's write or read, under its one lock, and record each change in its one undo log.
 */
interface InMemoryFolderRows extends FolderRows {
    /**
     * The folders, files and passages by id; the folders' attachments to agents by "folder id / agent id", as archives';
     * each agent's state of each file, by scope and file id.
     */
    record Tables(Map<String, Folder> folders, Map<String, FolderFile> files, Map<String, FilePassage> passages,
            Map<String, InMemoryAttachment> attachments, Map<InMemoryKey, FileState> fileStates) {
        Tables() {
            this(new LinkedHashMap<>(), new LinkedHashMap<>(), new LinkedHashMap<>(), new LinkedHashMap<>(),
                    new LinkedHashMap<>());
        }
    }

    /** The backend's folders. */
    Tables folderTables();

    /** The log that undoes a failed write, and the insertion positions; the backend's one. */
    InMemoryUndo undo();

    @Override
    default void putFolder(Folder folder) {
        undo().put(folderTables().folders(), folder.id(), folder);
    }

    @Override
    default Optional<Folder> folder(String userId, String id) {
        return Optional.ofNullable(folderTables().folders().get(id)).filter(f -> f.userId().equals(userId));
    }

    @Override
    default List<Folder> listFolders(String userId) {
        return folderTables().folders().values().stream().filter(f -> f.userId().equals(userId))
                .sorted(Comparator.comparing(Folder::createdAt).thenComparing(Folder::id)).toList();
    }

    @Override
    default boolean deleteFolder(String userId, String id) {
        if (folder(userId, id).isEmpty()) {
            return false;
        }
        for (InMemoryAttachment a : List.copyOf(folderTables().attachments().values())) {
            if (a.archiveId().equals(id)) {
                detachFolder(userId, id, a.agentId());
            }
        }
        return undo().remove(folderTables().folders(), id);
    }

    @Override
    default void attachFolder(String userId, String folderId, String agentId, Instant at) {
        undo().put(folderTables().attachments(), folderId + "/" + agentId,
                new InMemoryAttachment(userId, folderId, agentId, undo().position()));
    }

    @Override
    default boolean detachFolder(String userId, String folderId, String agentId) {
        for (Map.Entry<InMemoryKey, FileState> e : List.copyOf(folderTables().fileStates().entrySet())) {
            FileState s = e.getValue();
            if (s.userId().equals(userId) && s.agentId().equals(agentId) && s.folderId().equals(folderId)) {
                undo().remove(folderTables().fileStates(), e.getKey());
            }
        }
        InMemoryAttachment a = folderTables().attachments().get(folderId + "/" + agentId);
        return a != null && a.userId().equals(userId)
                && undo().remove(folderTables().attachments(), folderId + "/" + agentId);
    }

    @Override
    default List<String> folderAgents(String userId, String folderId) {
        return folderTables().attachments().values().stream()
                .filter(a -> a.userId().equals(userId) && a.archiveId().equals(folderId))
                .sorted(Comparator.comparingLong(InMemoryAttachment::pos)).map(InMemoryAttachment::agentId).toList();
    }

    @Override
    default List<Folder> agentFolders(Scope agent) {
        return folderTables().attachments().values().stream()
                .filter(a -> a.userId().equals(agent.userId()) && a.agentId().equals(agent.agentId()))
                .sorted(Comparator.comparingLong(InMemoryAttachment::pos)).map(a -> folderTables().folders().get(a.archiveId()))
                .toList();
    }

    @Override
    default void putFileState(FileState state) {
        undo().put(folderTables().fileStates(), new InMemoryKey(state.userId(), state.agentId(), state.fileId()), state);
    }

    @Override
    default List<FileState> fileStates(Scope agent) {
        return folderTables().fileStates().values().stream()
                .filter(s -> s.userId().equals(agent.userId()) && s.agentId().equals(agent.agentId()))
                .toList();
    }

    @Override
    default void putFile(FolderFile file) {
        undo().put(folderTables().files(), file.id(), file);
    }

    @Override
    default Optional<FolderFile> file(String userId, String id) {
        return Optional.ofNullable(folderTables().files().get(id)).filter(f -> f.userId().equals(userId));
    }

    @Override
    default List<FolderFile> listFiles(String userId, String folderId) {
        return folderTables().files().values().stream()
                .filter(f -> f.userId().equals(userId) && f.folderId().equals(folderId))
                .sorted(Comparator.comparing(FolderFile::createdAt).thenComparing(FolderFile::id)).toList();
    }

    @Override
    default boolean deleteFile(String userId, String id) {
        if (file(userId, id).isEmpty()) {
            return false;
        }
        passageIds(userId, id).forEach(p -> undo().remove(folderTables().passages(), p));
        for (Map.Entry<InMemoryKey, FileState> e : List.copyOf(folderTables().fileStates().entrySet())) {
            if (e.getValue().fileId().equals(id) && e.getValue().userId().equals(userId)) {
                undo().remove(folderTables().fileStates(), e.getKey());
            }
        }
        return undo().remove(folderTables().files(), id);
    }

    @Override
    default void insertPassages(List<FilePassage> list) {
        list.forEach(p -> undo().put(folderTables().passages(), p.id(), p));
    }

    @Override
    default Optional<FilePassage> passage(String userId, String id) {
        return Optional.ofNullable(folderTables().passages().get(id)).filter(p -> p.userId().equals(userId));
    }

    @Override
    default List<FilePassage> listPassages(String userId, String folderId, int offset, int limit) {
        Map<String, Integer> order = new HashMap<>();
        List<FolderFile> inFolder = listFiles(userId, folderId);
        for (int i = 0; i < inFolder.size(); i++) {
            order.put(inFolder.get(i).id(), i);
        }
        return folderTables().passages().values().stream().filter(p -> order.containsKey(p.fileId()))
                .sorted(Comparator.comparing((FilePassage p) -> order.get(p.fileId()))
                        .thenComparingInt(FilePassage::position))
                .skip(offset).limit(limit).toList();
    }

    @Override
    default List<String> passageIds(String userId, String fileId) {
        return folderTables().passages().values().stream()
                .filter(p -> p.userId().equals(userId) && p.fileId().equals(fileId))
                .sorted(Comparator.comparingInt(FilePassage::position)).map(FilePassage::id).toList();
    }

    @Override
    default long countPassages(String userId, String folderId) {
        return folderTables().passages().values().stream()
                .filter(p -> p.userId().equals(userId) && p.folderId().equals(folderId)).count();
    }
}
