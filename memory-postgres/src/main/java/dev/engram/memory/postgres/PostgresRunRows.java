package dev.engram.memory.postgres;

import dev.engram.memory.Run;
import dev.engram.memory.RunEvent;
import dev.engram.memory.RunStatus;
import dev.engram.memory.Step;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.mapper.RowMapper;

/** The run rows of {@link PostgresRows} (runs and their events), over its statement helpers, as {@code SqliteRunRows}. */
interface PostgresRunRows extends Rows {
    /** Runs an update with positional arguments; returns the rows changed. */
    int exec(String sql, Object... args);

    /** Runs a query with positional arguments. */
    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args);

    /** The first row of a query, if any. */
    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args);

    /** Events inserted by one statement at most (4 parameters each, far below PostgreSQL's 65,535). */
    int EVENTS_PER_INSERT = 1_000;

    private static Run run(ResultSet rs) throws SQLException {
        long completed = rs.getLong("completed_at");
        Optional<Instant> completedAt = rs.wasNull() ? Optional.empty() : Optional.of(Columns.instant(completed));
        return new Run(rs.getString("id"), rs.getString("user_id"), rs.getString("agent_id"), rs.getString("conversation_id"),
                rs.getBoolean("background"), RunStatus.valueOf(rs.getString("status")), rs.getString("stop_reason"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")), completedAt);
    }

    @Override
    default void putRun(Run r) {
        exec("INSERT INTO runs (id, user_id, agent_id, conversation_id, background, status, stop_reason, created_at, updated_at, "
                + "completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status, "
                + "stop_reason = excluded.stop_reason, updated_at = excluded.updated_at, completed_at = excluded.completed_at",
                r.id(), r.userId(), r.agentId(), r.conversationId(), r.background(), r.status().name(), r.stopReason(),
                Columns.micros(r.createdAt()), Columns.micros(r.updatedAt()),
                r.completedAt().<Object>map(Columns::micros).orElse(new PostgresRows.Null(Types.BIGINT)));
    }

    @Override
    default Optional<Run> run(String id) {
        return one("SELECT * FROM runs WHERE id = ?", (rs, c) -> run(rs), id);
    }

    @Override
    default Optional<Run> latestRun(String userId, String agentId, String conversationId) {
        return one("SELECT * FROM runs WHERE user_id = ? AND agent_id = ? AND conversation_id = ? "
                + "ORDER BY created_at DESC, id DESC LIMIT 1", (rs, c) -> run(rs), userId, agentId, conversationId);
    }

    @Override
    default void appendRunEvents(String runId, List<RunEvent> events) {
        for (int from = 0; from < events.size(); from += EVENTS_PER_INSERT) {
            List<RunEvent> part = events.subList(from, Math.min(events.size(), from + EVENTS_PER_INSERT));
            StringBuilder sql = new StringBuilder("INSERT INTO run_events (run_id, seq, event, data) VALUES ");
            List<Object> args = new ArrayList<>();
            for (RunEvent e : part) {
                sql.append(args.isEmpty() ? "" : ", ").append("(?, ?, ?, ?)");
                args.add(runId);
                args.add(e.seq());
                args.add(e.event());
                args.add(e.data());
            }
            exec(sql.toString(), args.toArray());
        }
    }

    @Override
    default List<RunEvent> runEvents(String runId, long afterSeq, int limit) {
        return query("SELECT seq, event, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                (rs, c) -> new RunEvent(rs.getLong("seq"), rs.getString("event"), rs.getString("data")), runId, afterSeq, limit);
    }

    @Override
    default long lastRunSeq(String runId) {
        return one("SELECT coalesce(max(seq), 0) AS last FROM run_events WHERE run_id = ?", (rs, c) -> rs.getLong("last"), runId)
                .orElse(0L);
    }

    @Override
    default void deleteRunEvents(String runId, long throughSeq) {
        exec("DELETE FROM run_events WHERE run_id = ? AND seq <= ?", runId, throughSeq);
    }

    @Override
    default int deleteRuns(Instant endedBefore, Instant staleBefore) {
        String gone = "SELECT id FROM runs WHERE completed_at < ? OR (completed_at IS NULL AND updated_at < ?)";
        long ended = Columns.micros(endedBefore);
        long stale = Columns.micros(staleBefore);
        exec("DELETE FROM run_events WHERE run_id IN (" + gone + ")", ended, stale);
        exec("DELETE FROM steps WHERE run_id IN (" + gone + ")", ended, stale);
        return exec("DELETE FROM runs WHERE id IN (" + gone + ")", ended, stale);
    }

    @Override
    default List<Run> userRuns(String userId) {
        return query("SELECT * FROM runs WHERE user_id = ? ORDER BY created_at, id", (rs, c) -> run(rs), userId);
    }

    @Override
    default boolean deleteRun(String id) {
        exec("DELETE FROM run_events WHERE run_id = ?", id);
        exec("DELETE FROM steps WHERE run_id = ?", id);
        return exec("DELETE FROM runs WHERE id = ?", id) > 0;
    }

    /** Steps upserted by one statement at most (18 parameters each, far below PostgreSQL's 65,535). */
    int STEPS_PER_INSERT = 500;

    @Override
    default void putSteps(List<Step> steps) {
        // one statement per batch: a run's steps cost one round trip with its events or its end
        for (int from = 0; from < steps.size(); from += STEPS_PER_INSERT) {
            List<Step> part = steps.subList(from, Math.min(steps.size(), from + STEPS_PER_INSERT));
            StringBuilder sql = new StringBuilder("INSERT INTO steps (" + Columns.STEP_COLUMNS + ") VALUES ");
            List<Object> args = new ArrayList<>();
            for (Step s : part) {
                sql.append(args.isEmpty() ? "" : ", ").append("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
                args.addAll(Columns.stepValues(s));
            }
            sql.append(" ON CONFLICT (id) DO UPDATE SET feedback = excluded.feedback, tags = excluded.tags");
            exec(sql.toString(), args.toArray());
        }
    }

    @Override
    default Optional<Step> step(String id) {
        return one("SELECT * FROM steps WHERE id = ?", (rs, c) -> Columns.step(rs), id);
    }

    @Override
    default List<Step> runSteps(String runId) {
        return query("SELECT * FROM steps WHERE run_id = ? ORDER BY started_at, id", (rs, c) -> Columns.step(rs), runId);
    }

    @Override
    default List<Step> userSteps(String userId) {
        return query("SELECT * FROM steps WHERE user_id = ? ORDER BY started_at, id", (rs, c) -> Columns.step(rs), userId);
    }
}
