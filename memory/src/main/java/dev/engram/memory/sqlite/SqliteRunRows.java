package dev.engram.memory.sqlite;

import dev.engram.memory.Run;
import dev.engram.memory.RunEvent;
import dev.engram.memory.RunStatus;
import dev.engram.memory.Step;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** The run rows of {@link SqliteRows} (runs, their events and steps), on the handle of its transaction. */
interface SqliteRunRows extends Rows {
    /** The handle of the transaction (or read) the rows work in. */
    Handle handle();

    private static Run run(ResultSet rs) throws SQLException {
        long completed = rs.getLong("completed_at");
        Optional<Instant> completedAt = rs.wasNull() ? Optional.empty() : Optional.of(Columns.instant(completed));
        return new Run(rs.getString("id"), rs.getString("user_id"), rs.getString("agent_id"), rs.getString("conversation_id"),
                rs.getInt("background") != 0, RunStatus.valueOf(rs.getString("status")), rs.getString("stop_reason"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")), completedAt);
    }

    @Override
    default void putRun(Run r) {
        handle().createUpdate("INSERT INTO runs (id, user_id, agent_id, conversation_id, background, status, stop_reason, "
                        + "created_at, updated_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE "
                        + "SET status = excluded.status, stop_reason = excluded.stop_reason, updated_at = excluded.updated_at, "
                        + "completed_at = excluded.completed_at")
                .bind(0, r.id()).bind(1, r.userId()).bind(2, r.agentId()).bind(3, r.conversationId())
                .bind(4, r.background() ? 1 : 0).bind(5, r.status().name()).bind(6, r.stopReason())
                .bind(7, Columns.micros(r.createdAt())).bind(8, Columns.micros(r.updatedAt()))
                .bind(9, Columns.micros(r.completedAt())).execute();
    }

    @Override
    default Optional<Run> run(String id) {
        return handle().createQuery("SELECT * FROM runs WHERE id = ?").bind(0, id).map((rs, ctx) -> run(rs)).findOne();
    }

    @Override
    default Optional<Run> latestRun(String userId, String agentId, String conversationId) {
        return handle().createQuery("SELECT * FROM runs WHERE user_id = ? AND agent_id = ? AND conversation_id = ? "
                        + "ORDER BY created_at DESC, id DESC LIMIT 1")
                .bind(0, userId).bind(1, agentId).bind(2, conversationId).map((rs, ctx) -> run(rs)).findOne();
    }

    @Override
    default void appendRunEvents(String runId, List<RunEvent> events) {
        var batch = handle().prepareBatch("INSERT INTO run_events (run_id, seq, event, data) VALUES (?, ?, ?, ?)");
        for (RunEvent e : events) {
            batch.bind(0, runId).bind(1, e.seq()).bind(2, e.event()).bind(3, e.data()).add();
        }
        batch.execute();
    }

    @Override
    default List<RunEvent> runEvents(String runId, long afterSeq, int limit) {
        return handle().createQuery("SELECT seq, event, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?")
                .bind(0, runId).bind(1, afterSeq).bind(2, limit)
                .map((rs, ctx) -> new RunEvent(rs.getLong("seq"), rs.getString("event"), rs.getString("data"))).list();
    }

    @Override
    default long lastRunSeq(String runId) {
        return handle().createQuery("SELECT coalesce(max(seq), 0) FROM run_events WHERE run_id = ?").bind(0, runId)
                .mapTo(Long.class).one();
    }

    @Override
    default void deleteRunEvents(String runId, long throughSeq) {
        handle().createUpdate("DELETE FROM run_events WHERE run_id = ? AND seq <= ?").bind(0, runId).bind(1, throughSeq)
                .execute();
    }

    @Override
    default int deleteRuns(Instant endedBefore, Instant staleBefore) {
        String gone = "SELECT id FROM runs WHERE completed_at < ? OR (completed_at IS NULL AND updated_at < ?)";
        long ended = Columns.micros(endedBefore);
        long stale = Columns.micros(staleBefore);
        handle().createUpdate("DELETE FROM run_events WHERE run_id IN (" + gone + ")").bind(0, ended).bind(1, stale).execute();
        handle().createUpdate("DELETE FROM steps WHERE run_id IN (" + gone + ")").bind(0, ended).bind(1, stale).execute();
        return handle().createUpdate("DELETE FROM runs WHERE id IN (" + gone + ")").bind(0, ended).bind(1, stale).execute();
    }

    @Override
    default List<Run> userRuns(String userId) {
        return handle().createQuery("SELECT * FROM runs WHERE user_id = ? ORDER BY created_at, id").bind(0, userId)
                .map((rs, ctx) -> run(rs)).list();
    }

    @Override
    default boolean deleteRun(String id) {
        handle().createUpdate("DELETE FROM run_events WHERE run_id = ?").bind(0, id).execute();
        handle().createUpdate("DELETE FROM steps WHERE run_id = ?").bind(0, id).execute();
        return handle().createUpdate("DELETE FROM runs WHERE id = ?").bind(0, id).execute() > 0;
    }

    @Override
    default void putSteps(List<Step> steps) {
        var batch = handle().prepareBatch("INSERT OR REPLACE INTO steps (" + Columns.STEP_COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        for (Step s : steps) {
            List<Object> values = Columns.stepValues(s);
            for (int i = 0; i < values.size(); i++) {
                batch.bind(i, values.get(i));
            }
            batch.add();
        }
        batch.execute();
    }

    @Override
    default Optional<Step> step(String id) {
        return handle().createQuery("SELECT * FROM steps WHERE id = ?").bind(0, id).map((rs, ctx) -> Columns.step(rs)).findOne();
    }

    @Override
    default List<Step> runSteps(String runId) {
        return handle().createQuery("SELECT * FROM steps WHERE run_id = ? ORDER BY started_at, id").bind(0, runId)
                .map((rs, ctx) -> Columns.step(rs)).list();
    }

    @Override
    default List<Step> userSteps(String userId) {
        return handle().createQuery("SELECT * FROM steps WHERE user_id = ? ORDER BY started_at, id").bind(0, userId)
                .map((rs, ctx) -> Columns.step(rs)).list();
    }
}
