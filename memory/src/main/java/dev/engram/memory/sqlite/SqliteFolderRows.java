package dev.engram.memory.sqlite;

import dev.engram.memory.FilePassage;
import dev.engram.memory.FileStatus;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.Metadata;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
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
    default boolean deleteFile(String userId, String id) {
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
}
