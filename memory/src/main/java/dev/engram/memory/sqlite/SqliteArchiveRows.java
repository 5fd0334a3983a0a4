package dev.engram.memory.sqlite;

import dev.engram.memory.Archive;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** The archive rows of {@link SqliteRows} (archives and their attachments to agents), on the handle of its transaction. */
interface SqliteArchiveRows extends Rows {
    /** The handle of the transaction (or read) the rows work in. */
    Handle handle();

    private static Archive archive(ResultSet rs) throws SQLException {
        return new Archive(rs.getString("id"), rs.getString("user_id"), rs.getString("name"), rs.getString("description"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")));
    }

    @Override
    default void putArchive(Archive a) {
        handle().createUpdate("INSERT INTO archives (id, user_id, name, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) "
                        + "ON CONFLICT (id) DO UPDATE SET name = excluded.name, description = excluded.description, "
                        + "updated_at = excluded.updated_at")
                .bind(0, a.id()).bind(1, a.userId()).bind(2, a.name()).bind(3, a.description())
                .bind(4, Columns.micros(a.createdAt())).bind(5, Columns.micros(a.updatedAt())).execute();
    }

    @Override
    default Optional<Archive> archive(String userId, String id) {
        return handle().createQuery("SELECT * FROM archives WHERE id = ? AND user_id = ?").bind(0, id).bind(1, userId)
                .map((rs, ctx) -> archive(rs)).findOne();
    }

    @Override
    default List<Archive> listArchives(String userId) {
        return handle().createQuery("SELECT * FROM archives WHERE user_id = ? ORDER BY created_at, id").bind(0, userId)
                .map((rs, ctx) -> archive(rs)).list();
    }

    @Override
    default boolean deleteArchive(String userId, String id) {
        handle().createUpdate("DELETE FROM archive_agents WHERE archive_id = ? AND user_id = ?").bind(0, id).bind(1, userId).execute();
        return handle().createUpdate("DELETE FROM archives WHERE id = ? AND user_id = ?").bind(0, id).bind(1, userId).execute() > 0;
    }

    @Override
    default void attachArchive(String userId, String archiveId, String agentId, Instant at) {
        handle().createUpdate("INSERT INTO archive_agents (archive_id, user_id, agent_id, created_at, seq) "
                        + "VALUES (?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM archive_agents))")
                .bind(0, archiveId).bind(1, userId).bind(2, agentId).bind(3, Columns.micros(at)).execute();
    }

    @Override
    default boolean detachArchive(String userId, String archiveId, String agentId) {
        return handle().createUpdate("DELETE FROM archive_agents WHERE archive_id = ? AND user_id = ? AND agent_id = ?")
                .bind(0, archiveId).bind(1, userId).bind(2, agentId).execute() > 0;
    }

    @Override
    default List<String> archiveAgents(String userId, String archiveId) {
        return handle().createQuery("SELECT agent_id FROM archive_agents WHERE archive_id = ? AND user_id = ? ORDER BY seq")
                .bind(0, archiveId).bind(1, userId).mapTo(String.class).list();
    }

    @Override
    default List<Archive> agentArchives(Scope agent) {
        return handle().createQuery("SELECT a.* FROM archive_agents x JOIN archives a ON a.id = x.archive_id "
                        + "WHERE x.user_id = ? AND x.agent_id = ? AND a.user_id = x.user_id ORDER BY x.seq")
                .bind(0, agent.userId()).bind(1, agent.agentId()).map((rs, ctx) -> archive(rs)).list();
    }

    @Override
    default List<String> deleteAllArchival(Scope scope) {
        List<String> ids = handle().createQuery("SELECT id FROM archival WHERE user_id = ? AND agent_id = ? ORDER BY created_at, id")
                .bind(0, scope.userId()).bind(1, scope.agentId()).mapTo(String.class).list();
        handle().createUpdate("DELETE FROM archival WHERE user_id = ? AND agent_id = ?").bind(0, scope.userId())
                .bind(1, scope.agentId()).execute();
        return ids;
    }
}
