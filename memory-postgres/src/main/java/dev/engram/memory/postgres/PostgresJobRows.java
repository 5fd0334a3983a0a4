package dev.engram.memory.postgres;

import dev.engram.memory.Job;
import dev.engram.memory.JobStatus;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.mapper.RowMapper;

/** The job rows of {@link PostgresRows}, over its statement helpers, as {@code SqliteJobRows}. */
interface PostgresJobRows extends Rows {
    /** Runs an update with positional arguments; returns the rows changed. */
    int exec(String sql, Object... args);

    /** Runs a query with positional arguments. */
    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args);

    /** The first row of a query, if any. */
    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args);

    private static Job job(ResultSet rs) throws SQLException {
        long completed = rs.getLong("completed_at");
        Optional<Instant> completedAt = rs.wasNull() ? Optional.empty() : Optional.of(Columns.instant(completed));
        return new Job(rs.getString("id"), rs.getString("user_id"), Optional.ofNullable(rs.getString("agent_id")),
                rs.getString("kind"), JobStatus.valueOf(rs.getString("status")), rs.getString("input"), rs.getString("result"),
                rs.getString("error"), rs.getInt("attempts"), Columns.instant(rs.getLong("created_at")),
                Columns.instant(rs.getLong("updated_at")), completedAt);
    }

    @Override
    default void putJob(Job j) {
        exec("INSERT INTO jobs (id, user_id, agent_id, kind, status, input, result, error, attempts, created_at, updated_at, "
                + "completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status, "
                + "result = excluded.result, error = excluded.error, attempts = excluded.attempts, "
                + "updated_at = excluded.updated_at, completed_at = excluded.completed_at",
                j.id(), j.userId(), j.agentId().orElse(null), j.kind(), j.status().name(), j.input(), j.result(), j.error(),
                j.attempts(), Columns.micros(j.createdAt()), Columns.micros(j.updatedAt()),
                j.completedAt().<Object>map(Columns::micros).orElse(new PostgresRows.Null(Types.BIGINT)));
    }

    @Override
    default Optional<Job> job(String id) {
        return one("SELECT * FROM jobs WHERE id = ?", (rs, c) -> job(rs), id);
    }

    @Override
    default List<Job> listJobs(String userId, int limit) {
        return query("SELECT * FROM jobs WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?", (rs, c) -> job(rs),
                userId, limit);
    }

    @Override
    default boolean deleteJob(String id) {
        return exec("DELETE FROM jobs WHERE id = ?", id) > 0;
    }

    @Override
    default List<Job> unfinishedJobs() {
        return query("SELECT * FROM jobs WHERE completed_at IS NULL ORDER BY created_at, id", (rs, c) -> job(rs));
    }
}
