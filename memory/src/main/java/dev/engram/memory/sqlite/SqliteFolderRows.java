package dev.engram.memory.sqlite;

import dev.engram.memory.FilePassage;
import dev.engram.memory.FileState;
import dev.engram.memory.FileStatus;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.Metadata;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;

/** The folder, file and passage rows of {@link SqliteRows}, on the handle of its transaction. */
interface SqliteFolderRows extends Rows {
    /** The handle of the transaction (or read) the rows work in. */
    Handle handle();

    private static Folder folder(ResultSet rs) throws SQLException {
        return new Folder(rs.getString("id"), rs.getString("user_id"), rs.getString("name"), rs.getString("description"),
                rs.getString("instructions"), Metadata.parse(rs.getString("metadata")), Columns.instant(rs.getLong("created_at")),
                Columns.instant(rs.getLong("updated_at")));
    }

    private static FolderFile file(ResultSet rs) throws SQLException {
        return new FolderFile(rs.getString("id"), rs.getString("user_id"), rs.getString("folder_id"), rs.getString("name"),
                rs.getString("original_name"), rs.getString("media_type"), rs.getLong("size_bytes"),
                FileStatus.valueOf(rs.getString("status")), rs.getString("error"), rs.getInt("total_chunks"),
                rs.getInt("chunks_embedded"), rs.getString("text"), Columns.instant(rs.getLong("created_at")),
                Columns.instant(rs.getLong("updated_at")));
    }

    private static FilePassage passage(ResultSet rs) throws SQLException {
        return new FilePassage(rs.getString("id"), rs.getString("user_id"), rs.getString("folder_id"), rs.getString("file_id"),
                rs.getInt("position"), rs.getString("text"), Columns.instant(rs.getLong("created_at")));
    }

    @Override
    default void putFolder(Folder f) {
        handle().createUpdate("INSERT INTO folders (id, user_id, name, description, instructions, metadata, created_at, "
                        + "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
                        + "description = excluded.description, instructions = excluded.instructions, "
                        + "metadata = excluded.metadata, updated_at = excluded.updated_at")
                .bind(0, f.id()).bind(1, f.userId()).bind(2, f.name()).bind(3, f.description()).bind(4, f.instructions())
                .bind(5, f.metadata().json()).bind(6, Columns.micros(f.createdAt())).bind(7, Columns.micros(f.updatedAt()))
                .execute();
    }

    @Override
    default Optional<Folder> folder(String userId, String id) {
        return handle().createQuery("SELECT * FROM folders WHERE id = ? AND user_id = ?").bind(0, id).bind(1, userId)
                .map((rs, ctx) -> folder(rs)).findOne();
    }

    @Override
    default List<Folder> listFolders(String userId) {
        return handle().createQuery("SELECT * FROM folders WHERE user_id = ? ORDER BY created_at, id").bind(0, userId)
                .map((rs, ctx) -> folder(rs)).list();
    }

    @Override
    default boolean deleteFolder(String userId, String id) {
        handle().createUpdate("DELETE FROM folder_agents WHERE folder_id = ? AND user_id = ?").bind(0, id).bind(1, userId).execute();
        handle().createUpdate("DELETE FROM agent_files WHERE folder_id = ? AND user_id = ?").bind(0, id).bind(1, userId).execute();
        return handle().createUpdate("DELETE FROM folders WHERE id = ? AND user_id = ?").bind(0, id).bind(1, userId)
                .execute() > 0;
    }

    @Override
    default void putFile(FolderFile f) {
        handle().createUpdate("INSERT INTO files (id, user_id, folder_id, name, original_name, media_type, size_bytes, "
                        + "status, error, total_chunks, chunks_embedded, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?, "
                        + "?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status, "
                        + "error = excluded.error, total_chunks = excluded.total_chunks, "
                        + "chunks_embedded = excluded.chunks_embedded, text = excluded.text, updated_at = excluded.updated_at")
                .bind(0, f.id()).bind(1, f.userId()).bind(2, f.folderId()).bind(3, f.name()).bind(4, f.originalName())
                .bind(5, f.mediaType()).bind(6, f.sizeBytes()).bind(7, f.status().name()).bind(8, f.error())
                .bind(9, f.totalChunks()).bind(10, f.chunksEmbedded()).bind(11, f.text())
                .bind(12, Columns.micros(f.createdAt())).bind(13, Columns.micros(f.updatedAt())).execute();
    }

    @Override
    default Optional<FolderFile> file(String userId, String id) {
        return handle().createQuery("SELECT * FROM files WHERE id = ? AND user_id = ?").bind(0, id).bind(1, userId)
                .map((rs, ctx) -> file(rs)).findOne();
    }

    @Override
    default List<FolderFile> listFiles(String userId, String folderId) {
        return handle().createQuery("SELECT * FROM files WHERE user_id = ? AND folder_id = ? ORDER BY created_at, id")
                .bind(0, userId).bind(1, folderId).map((rs, ctx) -> file(rs)).list();
    }

    @Override
    default List<FolderFile> listFileHeads(String userId, String folderId) {
        return handle().createQuery("SELECT id, user_id, folder_id, name, original_name, media_type, size_bytes, status, "
                        + "error, total_chunks, chunks_embedded, '' AS text, created_at, updated_at FROM files "
                        + "WHERE user_id = ? AND folder_id = ? ORDER BY created_at, id")
                .bind(0, userId).bind(1, folderId).map((rs, ctx) -> file(rs)).list();
    }

    @Override
    default boolean deleteFile(String userId, String id) {
        handle().createUpdate("DELETE FROM agent_files WHERE file_id = ? AND user_id = ?").bind(0, id).bind(1, userId).execute();
        handle().createUpdate("DELETE FROM file_passages WHERE file_id = ? AND user_id = ?").bind(0, id).bind(1, userId)
                .execute();
        return handle().createUpdate("DELETE FROM files WHERE id = ? AND user_id = ?").bind(0, id).bind(1, userId)
                .execute() > 0;
    }

    @Override
    default void insertPassages(List<FilePassage> passages) {
        PreparedBatch batch = handle().prepareBatch("INSERT INTO file_passages (id, user_id, folder_id, file_id, position, "
                + "text, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
        for (FilePassage p : passages) {
            batch.bind(0, p.id()).bind(1, p.userId()).bind(2, p.folderId()).bind(3, p.fileId()).bind(4, p.position())
                    .bind(5, p.text()).bind(6, Columns.micros(p.createdAt())).add();
        }
        if (!passages.isEmpty()) {
            batch.execute();
        }
    }

    @Override
    default Optional<FilePassage> passage(String userId, String id) {
        return handle().createQuery("SELECT * FROM file_passages WHERE id = ? AND user_id = ?").bind(0, id).bind(1, userId)
                .map((rs, ctx) -> passage(rs)).findOne();
    }

    @Override
    default List<FilePassage> listPassages(String userId, String folderId, int offset, int limit) {
        return handle().createQuery("SELECT p.* FROM file_passages p JOIN files f ON f.id = p.file_id "
                        + "WHERE p.user_id = ? AND p.folder_id = ? ORDER BY f.created_at, f.id, p.position LIMIT ? OFFSET ?")
                .bind(0, userId).bind(1, folderId).bind(2, limit).bind(3, offset).map((rs, ctx) -> passage(rs)).list();
    }

    @Override
    default List<String> passageIds(String userId, String fileId) {
        return handle().createQuery("SELECT id FROM file_passages WHERE file_id = ? AND user_id = ? ORDER BY position")
                .bind(0, fileId).bind(1, userId).mapTo(String.class).list();
    }

    @Override
    default long countPassages(String userId, String folderId) {
        return handle().createQuery("SELECT count(*) FROM file_passages WHERE user_id = ? AND folder_id = ?")
                .bind(0, userId).bind(1, folderId).mapTo(Long.class).one();
    }

    @Override
    default void attachFolder(String userId, String folderId, String agentId, Instant at) {
        handle().createUpdate("INSERT INTO folder_agents (folder_id, user_id, agent_id, created_at, seq) "
                        + "VALUES (?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM folder_agents))")
                .bind(0, folderId).bind(1, userId).bind(2, agentId).bind(3, Columns.micros(at)).execute();
    }

    @Override
    default boolean detachFolder(String userId, String folderId, String agentId) {
        handle().createUpdate("DELETE FROM agent_files WHERE folder_id = ? AND user_id = ? AND agent_id = ?")
                .bind(0, folderId).bind(1, userId).bind(2, agentId).execute();
        return handle().createUpdate("DELETE FROM folder_agents WHERE folder_id = ? AND user_id = ? AND agent_id = ?")
                .bind(0, folderId).bind(1, userId).bind(2, agentId).execute() > 0;
    }

    @Override
    default List<String> folderAgents(String userId, String folderId) {
        return handle().createQuery("SELECT agent_id FROM folder_agents WHERE folder_id = ? AND user_id = ? ORDER BY seq")
                .bind(0, folderId).bind(1, userId).mapTo(String.class).list();
    }

    @Override
    default List<Folder> agentFolders(Scope agent) {
        return handle().createQuery("SELECT f.* FROM folder_agents x JOIN folders f ON f.id = x.folder_id "
                        + "WHERE x.user_id = ? AND x.agent_id = ? AND f.user_id = x.user_id ORDER BY x.seq")
                .bind(0, agent.userId()).bind(1, agent.agentId()).map((rs, ctx) -> folder(rs)).list();
    }

    @Override
    default void putFileState(FileState s) {
        handle().createUpdate("INSERT INTO agent_files (user_id, agent_id, file_id, folder_id, is_open, view_offset, view_length, "
                        + "last_accessed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, agent_id, file_id) DO UPDATE "
                        + "SET is_open = excluded.is_open, view_offset = excluded.view_offset, view_length = excluded.view_length, "
                        + "last_accessed_at = excluded.last_accessed_at")
                .bind(0, s.userId()).bind(1, s.agentId()).bind(2, s.fileId()).bind(3, s.folderId()).bind(4, s.open() ? 1 : 0)
                .bind(5, s.offset()).bind(6, s.length()).bind(7, Columns.micros(s.lastAccessedAt())).execute();
    }

    @Override
    default List<FileState> fileStates(Scope agent) {
        return handle().createQuery("SELECT * FROM agent_files WHERE user_id = ? AND agent_id = ?")
                .bind(0, agent.userId()).bind(1, agent.agentId())
                .map((rs, ctx) -> new FileState(rs.getString("user_id"), rs.getString("agent_id"), rs.getString("file_id"),
                        rs.getString("folder_id"), rs.getInt("is_open") != 0, rs.getInt("view_offset"), rs.getInt("view_length"),
                        Columns.instant(rs.getLong("last_accessed_at")))).list();
    }
}
