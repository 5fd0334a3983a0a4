package dev.engram.memory.postgres;

import dev.engram.memory.MemoryStats;
import dev.engram.memory.Scope;
import dev.engram.memory.UserUsage;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.mapper.RowMapper;

/** The counts of {@link PostgresRows}: a user's usage and a scope's prompt statistics, as {@code SqliteRows}'. */
interface PostgresCountRows extends Rows {
    /** Runs a query with positional arguments. */
    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args);

    /** The first row of a query, if any. */
    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args);

    @Override
    default UserUsage usage(String userId) {
        return one("SELECT (SELECT count(*) FROM agents WHERE user_id = ?), (SELECT count(*) FROM blocks WHERE user_id = ?), "
                + "(SELECT count(*) FROM archival WHERE user_id = ?), (SELECT count(*) FROM notes WHERE user_id = ?), "
                + "coalesce((SELECT sum(octet_length(value)) FROM blocks WHERE user_id = ?), 0) "
                + "+ coalesce((SELECT sum(octet_length(content)) FROM archival WHERE user_id = ?), 0) "
                + "+ coalesce((SELECT sum(octet_length(content)) FROM notes WHERE user_id = ?), 0) "
                + "+ coalesce((SELECT sum(octet_length(text)) FROM files WHERE user_id = ?), 0)",
                (rs, c) -> new UserUsage(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5)),
                userId, userId, userId, userId, userId, userId, userId, userId).orElseThrow();
    }

    @Override
    default MemoryStats stats(Scope s) {
        return one("SELECT (SELECT count(*) FROM blocks WHERE user_id = ? AND agent_id = ?) "
                + "+ (SELECT count(*) FROM block_shares WHERE user_id = ? AND agent_id = ?), "
                + "(SELECT count(*) FROM archival WHERE user_id = ? AND agent_id = ? AND valid_to IS NULL), "
                + "(SELECT count(*) FROM notes WHERE user_id = ? AND valid_to IS NULL), "
                + "count(*), count(*) FILTER (WHERE in_context), max(created_at) FROM messages WHERE user_id = ? AND agent_id = ?",
                (rs, c) -> new MemoryStats(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5),
                        rs.getObject(6) == null ? Optional.empty() : Optional.of(Columns.instant(rs.getLong(6)))),
                s.userId(), s.agentId(), s.userId(), s.agentId(), s.userId(), s.agentId(), s.userId(), s.userId(), s.agentId())
                .orElseThrow();
    }
}
