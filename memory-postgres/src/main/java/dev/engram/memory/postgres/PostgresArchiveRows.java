package dev.engram.memory.postgres;

import dev.engram.memory.Archive;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.mapper.RowMapper;

/** The archive rows of {@link PostgresRows} (archives and their attachments to agents), as {@code SqliteArchiveRows}. */
interface PostgresArchiveRows extends Rows {
    /** Runs an update with positional arguments; returns the rows changed. */
    int exec(String sql, Object... args);

    /** Runs a query with positional arguments. */
    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args);

    /** The first row of a query, if any. */
    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args);

    private static Archive archive(ResultSet rs) throws SQLException {
        return new Archive(rs.getString("id"), rs.getString("user_id"), rs.getString("name"), rs.getString("description"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")));
    }

    @Override
    default void putArchive(Archive a) {
        exec("INSERT INTO archives (id, user_id, name, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (id) DO UPDATE SET name = excluded.name, description = excluded.description, "
                + "updated_at = excluded.updated_at", a.id(), a.userId(), a.name(), a.description(),
                Columns.micros(a.createdAt()), Columns.micros(a.updatedAt()));
    }

    @Override
    default Optional<Archive> archive(String userId, String id) {
        return one("SELECT * FROM archives WHERE id = ? AND user_id = ?", (rs, c) -> archive(rs), id, userId);
    }

    @Override
    default List<Archive> listArchives(String userId) {
        return query("SELECT * FROM archives WHERE user_id = ? ORDER BY created_at, id", (rs, c) -> archive(rs), userId);
    }

    @Override
    default boolean deleteArchive(String userId, String id) {
        exec("DELETE FROM archive_agents WHERE archive_id = ? AND user_id = ?", id, userId);
        return exec("DELETE FROM archives WHERE id = ? AND user_id = ?", id, userId) > 0;
    }

    @Override
    default void attachArchive(String userId, String archiveId, String agentId, Instant at) {
        exec("INSERT INTO archive_agents (archive_id, user_id, agent_id, created_at) VALUES (?, ?, ?, ?)", archiveId, userId,
                agentId, Columns.micros(at));
    }

    @Override
    default boolean detachArchive(String userId, String archiveId, String agentId) {
        return exec("DELETE FROM archive_agents WHERE archive_id = ? AND user_id = ? AND agent_id = ?", archiveId, userId,
                agentId) > 0;
    }

    @Override
    default List<String> archiveAgents(String userId, String archiveId) {
        return query("SELECT agent_id FROM archive_agents WHERE archive_id = ? AND user_id = ? ORDER BY seq",
                (rs, c) -> rs.getString(1), archiveId, userId);
    }

    @Override
    default List<Archive> agentArchives(Scope agent) {
        return query("SELECT a.* FROM archive_agents x JOIN archives a ON a.id = x.archive_id WHERE x.user_id = ? "
                + "AND x.agent_id = ? AND a.user_id = x.user_id ORDER BY x.seq", (rs, c) -> archive(rs), agent.userId(),
                agent.agentId());
    }

    @Override
    default List<String> deleteAllArchival(Scope scope) {
        return query("DELETE FROM archival WHERE user_id = ? AND agent_id = ? RETURNING id", (rs, c) -> rs.getString(1),
                scope.userId(), scope.agentId());
    }
}
