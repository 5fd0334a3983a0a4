package dev.engram.memory.spi;

import dev.engram.memory.FilePassage;
import dev.engram.memory.FileState;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.Scope;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The folders of a {@link MemoryBackend}: each user's folders of files, the files' passages, the folders'
 * attachments to agents and each agent's state of each file. Optional: the defaults throw.
 */
public interface FolderRows {
    /** Stores a folder, replacing the one of its id. Folders are optional, like jobs: the defaults throw. */
    default void putFolder(Folder folder) {
        throw noFolders();
    }

    /** The user's folder of that id. */
    default Optional<Folder> folder(String userId, String id) {
        throw noFolders();
    }

    /** The user's folders, oldest first (by creation, then id). */
    default List<Folder> listFolders(String userId) {
        throw noFolders();
    }

    /**
     * Removes the user's folder row with its attachments to agents (the store removes its files first); returns whether
     * there was one.
     */
    default boolean deleteFolder(String userId, String id) {
        throw noFolders();
    }

    /** Stores a file, replacing the one of its id. */
    default void putFile(FolderFile file) {
        throw noFolders();
    }

    /** The user's file of that id. */
    default Optional<FolderFile> file(String userId, String id) {
        throw noFolders();
    }

    /** The files of the user's folder, oldest first (by creation, then id). */
    default List<FolderFile> listFiles(String userId, String folderId) {
        throw noFolders();
    }

    /** Removes the user's file, its passages and the agents' states of it; returns whether there was one. */
    default boolean deleteFile(String userId, String id) {
        throw noFolders();
    }

    /** Stores new passages. */
    default void insertPassages(List<FilePassage> passages) {
        throw noFolders();
    }

    /** The user's passage of that id. */
    default Optional<FilePassage> passage(String userId, String id) {
        throw noFolders();
    }

    /** The passages of the user's folder, by file (creation, then id), then position; {@code offset} skipped, at most {@code limit}. */
    default List<FilePassage> listPassages(String userId, String folderId, int offset, int limit) {
        throw noFolders();
    }

    /** The ids of the passages of the user's file. */
    default List<String> passageIds(String userId, String fileId) {
        throw noFolders();
    }

    /** How many passages the user's folder holds. */
    default long countPassages(String userId, String folderId) {
        throw noFolders();
    }

    /** Attaches the user's folder to the user's agent, at {@code at}; the store has checked that it is not attached yet. */
    default void attachFolder(String userId, String folderId, String agentId, Instant at) {
        throw noFolders();
    }

    /** Detaches the folder from the agent with the agent's states of its files; returns whether it was attached. */
    default boolean detachFolder(String userId, String folderId, String agentId) {
        throw noFolders();
    }

    /** The agents the user's folder is attached to, the earliest attached first. */
    default List<String> folderAgents(String userId, String folderId) {
        throw noFolders();
    }

    /** The folders attached to the agent, the earliest attached first. */
    default List<Folder> agentFolders(Scope agent) {
        throw noFolders();
    }

    /** Stores the agent's state of one file, replacing the one of its agent and file. */
    default void putFileState(FileState state) {
        throw noFolders();
    }

    /** The agent's states of its files, in no particular order. */
    default List<FileState> fileStates(Scope agent) {
        throw noFolders();
    }

    private static UnsupportedOperationException noFolders() {
        return new UnsupportedOperationException("this memory backend keeps no folders (it does not implement the folder "
                + "methods of Rows)");
    }

    /**
     * The files of the user's folder as {@link #listFiles} lists them, each without its text ({@link FolderFile#head()}):
     * what names the files of a folder without reading them. The default reads the files and drops their text; a backend
     * that stores text in a column overrides it with a query that leaves the column out.
     */
    default List<FolderFile> listFileHeads(String userId, String folderId) {
        return listFiles(userId, folderId).stream().map(FolderFile::head).toList();
    }
}
