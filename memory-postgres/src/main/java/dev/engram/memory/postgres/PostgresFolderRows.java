package dev.engram.memory.postgres;

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
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.PreparedBatch;

/** The folder, file and passage rows of {@link PostgresRows}, over its statement helpers, as {@code SqliteFolderRows}. */
interface PostgresFolderRows extends Rows {
    /** The handle of the transaction (or read) the rows work in. */
    Handle h();

    /** Runs an update with positional arguments; returns the rows changed. */
    int exec(String sql, Object... args);

    /** Runs a query with positional arguments. */
    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args);

    /** The first row of a query, if any. */
    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args);

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
        exec("INSERT INTO folders (id, user_id, name, description, instructions, metadata, created_at, updated_at) VALUES "
                + "(?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, "
                + "description = excluded.description, instructions = excluded.instructions, metadata = excluded.metadata, "
                + "updated_at = excluded.updated_at", f.id(), f.userId(), f.name(), f.description(), f.instructions(),
                f.metadata().json(), Columns.micros(f.createdAt()), Columns.micros(f.updatedAt()));
    }

    @Override
    default Optional<Folder> folder(String userId, String id) {
        return one("SELECT * FROM folders WHERE id = ? AND user_id = ?", (rs, c) -> folder(rs), id, userId);
    }

    @Override
    default List<Folder> listFolders(String userId) {
        return query("SELECT * FROM folders WHERE user_id = ? ORDER BY created_at, id", (rs, c) -> folder(rs), userId);
    }

    @Override
    default boolean deleteFolder(String userId, String id) {
        exec("DELETE FROM folder_agents WHERE folder_id = ? AND user_id = ?", id, userId);
        exec("DELETE FROM agent_files WHERE folder_id = ? AND user_id = ?", id, userId);
        return exec("DELETE FROM folders WHERE id = ? AND user_id = ?", id, userId) > 0;
    }

    @Override
    default void putFile(FolderFile f) {
        exec("INSERT INTO files (id, user_id, folder_id, name, original_name, media_type, size_bytes, status, error, "
                + "total_chunks, chunks_embedded, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (id) DO UPDATE SET status = excluded.status, error = excluded.error, "
                + "total_chunks = excluded.total_chunks, chunks_embedded = excluded.chunks_embedded, text = excluded.text, "
                + "updated_at = excluded.updated_at", f.id(), f.userId(), f.folderId(), f.name(), f.originalName(),
                f.mediaType(), f.sizeBytes(), f.status().name(), f.error(), f.totalChunks(), f.chunksEmbedded(), f.text(),
                Columns.micros(f.createdAt()), Columns.micros(f.updatedAt()));
    }

    @Override
    default Optional<FolderFile> file(String userId, String id) {
        return one("SELECT * FROM files WHERE id = ? AND user_id = ?", (rs, c) -> file(rs), id, userId);
    }

    @Override
    default List<FolderFile> listFiles(String userId, String folderId) {
        return query("SELECT * FROM files WHERE user_id = ? AND folder_id = ? ORDER BY created_at, id", (rs, c) -> file(rs),
                userId, folderId);
    }

    @Override
    default List<FolderFile> listFileHeads(String userId, String folderId) {
        return query("SELECT id, user_id, folder_id, name, original_name, media_type, size_bytes, status, error, total_chunks, "
                + "chunks_embedded, '' AS text, created_at, updated_at FROM files WHERE user_id = ? AND folder_id = ? "
                + "ORDER BY created_at, id", (rs, c) -> file(rs), userId, folderId);
    }

    @Override
    default boolean deleteFile(String userId, String id) {
        exec("DELETE FROM agent_files WHERE file_id = ? AND user_id = ?", id, userId);
        exec("DELETE FROM file_passages WHERE file_id = ? AND user_id = ?", id, userId);
        return exec("DELETE FROM files WHERE id = ? AND user_id = ?", id, userId) > 0;
    }

    @Override
    default void insertPassages(List<FilePassage> passages) {
        if (passages.isEmpty()) {
            return;
        }
        PreparedBatch batch = h().prepareBatch("INSERT INTO file_passages (id, user_id, folder_id, file_id, position, text, "
                + "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
        for (FilePassage p : passages) {
            batch.bind(0, p.id()).bind(1, p.userId()).bind(2, p.folderId()).bind(3, p.fileId()).bind(4, p.position())
                    .bind(5, p.text()).bind(6, Columns.micros(p.createdAt())).add();
        }
        batch.execute();
    }

    @Override
    default Optional<FilePassage> passage(String userId, String id) {
        return one("SELECT * FROM file_passages WHERE id = ? AND user_id = ?", (rs, c) -> passage(rs), id, userId);
    }

    @Override
    default List<FilePassage> listPassages(String userId, String folderId, int offset, int limit) {
        return query("SELECT p.* FROM file_passages p JOIN files f ON f.id = p.file_id WHERE p.user_id = ? AND p.folder_id = ? "
                + "ORDER BY f.created_at, f.id, p.position LIMIT ? OFFSET ?", (rs, c) -> passage(rs), userId, folderId, limit,
                offset);
    }

    @Override
    default List<String> passageIds(String userId, String fileId) {
        return query("SELECT id FROM file_passages WHERE file_id = ? AND user_id = ? ORDER BY position",
                (rs, c) -> rs.getString(1), fileId, userId);
    }

    @Override
    default long countPassages(String userId, String folderId) {
        return one("SELECT count(*) FROM file_passages WHERE user_id = ? AND folder_id = ?", (rs, c) -> rs.getLong(1),
                userId, folderId).orElse(0L);
    }

    @Override
    default void attachFolder(String userId, String folderId, String agentId, Instant at) {
        exec("INSERT INTO folder_agents (folder_id, user_id, agent_id, created_at) VALUES (?, ?, ?, ?)", folderId, userId,
                agentId, Columns.micros(at));
    }

    @Override
    default boolean detachFolder(String userId, String folderId, String agentId) {
        exec("DELETE FROM agent_files WHERE folder_id = ? AND user_id = ? AND agent_id = ?", folderId, userId, agentId);
        return exec("DELETE FROM folder_agents WHERE folder_id = ? AND user_id = ? AND agent_id = ?", folderId, userId,
                agentId) > 0;
    }

    @Override
    default List<String> folderAgents(String userId, String folderId) {
        return query("SELECT agent_id FROM folder_agents WHERE folder_id = ? AND user_id = ? ORDER BY seq",
                (rs, c) -> rs.getString(1), folderId, userId);
    }

    @Override
    default List<Folder> agentFolders(Scope agent) {
        return query("SELECT f.* FROM folder_agents x JOIN folders f ON f.id = x.folder_id WHERE x.user_id = ? "
                + "AND x.agent_id = ? AND f.user_id = x.user_id ORDER BY x.seq", (rs, c) -> folder(rs), agent.userId(),
                agent.agentId());
    }

    @Override
    default void putFileState(FileState s) {
        exec("INSERT INTO agent_files (user_id, agent_id, file_id, folder_id, is_open, view_offset, view_length, "
                + "last_accessed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, agent_id, file_id) DO UPDATE SET "
                + "is_open = excluded.is_open, view_offset = excluded.view_offset, view_length = excluded.view_length, "
                + "last_accessed_at = excluded.last_accessed_at", s.userId(), s.agentId(), s.fileId(), s.folderId(), s.open(),
                s.offset(), s.length(), Columns.micros(s.lastAccessedAt()));
    }

    @Override
    default List<FileState> fileStates(Scope agent) {
        return query("SELECT * FROM agent_files WHERE user_id = ? AND agent_id = ?", (rs, c) -> new FileState(
                rs.getString("user_id"), rs.getString("agent_id"), rs.getString("file_id"), rs.getString("folder_id"),
                rs.getBoolean("is_open"), rs.getInt("view_offset"), rs.getInt("view_length"),
                Columns.instant(rs.getLong("last_accessed_at"))), agent.userId(), agent.agentId());
    }
}
