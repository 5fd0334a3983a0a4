package dev.engram.memory.sqlite;

import dev.engram.memory.Job;
import dev.engram.memory.JobStatus;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** The job rows of {@link SqliteRows}, on the handle of its transaction. */
interface SqliteJobRows extends Rows {
    /** The handle of the transaction (or read) the rows work in. */
    Handle handle();

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
        handle().createUpdate("INSERT INTO jobs (id, user_id, agent_id, kind, status, input, result, error, attempts, "
                        + "created_at, updated_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) "
                        + "DO UPDATE SET status = excluded.status, result = excluded.result, error = excluded.error, "
                        + "attempts = excluded.attempts, updated_at = excluded.updated_at, completed_at = excluded.completed_at")
                .bind(0, j.id()).bind(1, j.userId()).bind(2, j.agentId().orElse(null)).bind(3, j.kind())
                .bind(4, j.status().name()).bind(5, j.input()).bind(6, j.result()).bind(7, j.error()).bind(8, j.attempts())
                .bind(9, Columns.micros(j.createdAt())).bind(10, Columns.micros(j.updatedAt()))
                .bind(11, Columns.micros(j.completedAt())).execute();
    }

    @Override
    default Optional<Job> job(String id) {
        return handle().createQuery("SELECT * FROM jobs WHERE id = ?").bind(0, id).map((rs, ctx) -> job(rs)).findOne();
    }

    @Override
    default List<Job> listJobs(String userId, int limit) {
        return handle().createQuery("SELECT * FROM jobs WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?")
                .bind(0, userId).bind(1, limit).map((rs, ctx) -> job(rs)).list();
    }

    @Override
    default boolean deleteJob(String id) {
        return handle().createUpdate("DELETE FROM jobs WHERE id = ?").bind(0, id).execute() > 0;
    }

    @Override
    default List<Job> unfinishedJobs() {
        return handle().createQuery("SELECT * FROM jobs WHERE completed_at IS NULL ORDER BY created_at, id")
                .map((rs, ctx) -> job(rs)).list();
    }
}
