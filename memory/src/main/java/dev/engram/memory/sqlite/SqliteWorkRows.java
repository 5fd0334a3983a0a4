package dev.engram.memory.sqlite;

import dev.engram.memory.Goal;
import dev.engram.memory.GoalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.TodoItem;
import dev.engram.memory.TodoStatus;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/**
 * The work-state rows of {@link SqliteRows} (todos, goals and their entries), on the handle of its transaction. Goals
 * and entries come back in the order they were inserted (their rowid), which their times cannot give when two share an
 * instant.
 */
interface SqliteWorkRows extends Rows {
    /** The handle of the transaction (or read) the rows work in. */
    Handle handle();

    private static Goal goal(ResultSet rs) throws SQLException {
        long completed = rs.getLong("completed_at");
        Optional<Instant> completedAt = rs.wasNull() ? Optional.empty() : Optional.of(Columns.instant(completed));
        return new Goal(rs.getString("id"), rs.getString("user_id"), rs.getString("agent_id"), rs.getString("title"),
                rs.getString("description"), rs.getInt("completed") != 0, rs.getInt("is_current") != 0,
                rs.getString("outcome"), Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")),
                completedAt);
    }

    private static GoalEntry entry(ResultSet rs) throws SQLException {
        return new GoalEntry(rs.getString("id"), rs.getString("goal_id"), GoalEntry.Kind.valueOf(rs.getString("kind")),
                rs.getString("text"), rs.getString("rationale"), Columns.instant(rs.getLong("created_at")));
    }

    @Override
    default List<TodoItem> todos(Scope scope) {
        return handle().createQuery("SELECT content, status FROM todos WHERE user_id = ? AND agent_id = ? ORDER BY position")
                .bind(0, scope.userId()).bind(1, scope.agentId())
                .map((rs, ctx) -> new TodoItem(rs.getString("content"), TodoStatus.valueOf(rs.getString("status")))).list();
    }

    @Override
    default void replaceTodos(Scope scope, List<TodoItem> todos, Instant at) {
        handle().createUpdate("DELETE FROM todos WHERE user_id = ? AND agent_id = ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).execute();
        if (todos.isEmpty()) {
            return;
        }
        var batch = handle().prepareBatch("INSERT INTO todos (user_id, agent_id, position, content, status, updated_at) "
                + "VALUES (?, ?, ?, ?, ?, ?)");
        for (int i = 0; i < todos.size(); i++) {
            TodoItem t = todos.get(i);
            batch.bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, i).bind(3, t.content())
                    .bind(4, t.status().name()).bind(5, Columns.micros(at)).add();
        }
        batch.execute();
    }

    @Override
    default void putGoal(Goal g) {
        handle().createUpdate("INSERT INTO goals (id, user_id, agent_id, title, description, completed, is_current, outcome, "
                        + "created_at, updated_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE "
                        + "SET completed = excluded.completed, is_current = excluded.is_current, outcome = excluded.outcome, "
                        + "updated_at = excluded.updated_at, completed_at = excluded.completed_at")
                .bind(0, g.id()).bind(1, g.userId()).bind(2, g.agentId()).bind(3, g.title()).bind(4, g.description())
                .bind(5, g.completed() ? 1 : 0).bind(6, g.current() ? 1 : 0).bind(7, g.outcome())
                .bind(8, Columns.micros(g.createdAt())).bind(9, Columns.micros(g.updatedAt()))
                .bind(10, Columns.micros(g.completedAt())).execute();
    }

    @Override
    default Optional<Goal> goal(String id) {
        return handle().createQuery("SELECT * FROM goals WHERE id = ?").bind(0, id).map((rs, ctx) -> goal(rs)).findOne();
    }

    @Override
    default List<Goal> goals(Scope scope) {
        return handle().createQuery("SELECT * FROM goals WHERE user_id = ? AND agent_id = ? ORDER BY rowid")
                .bind(0, scope.userId()).bind(1, scope.agentId()).map((rs, ctx) -> goal(rs)).list();
    }

    @Override
    default void insertGoalEntry(Scope scope, GoalEntry e) {
        handle().createUpdate("INSERT INTO goal_entries (id, goal_id, user_id, agent_id, kind, text, rationale, created_at) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
                .bind(0, e.id()).bind(1, e.goalId()).bind(2, scope.userId()).bind(3, scope.agentId())
                .bind(4, e.kind().name()).bind(5, e.text()).bind(6, e.rationale()).bind(7, Columns.micros(e.createdAt()))
                .execute();
    }

    @Override
    default List<GoalEntry> goalEntries(String goalId, GoalEntry.Kind kind, int limit) {
        return handle().createQuery("SELECT * FROM goal_entries WHERE goal_id = ? AND kind = ? ORDER BY rowid DESC LIMIT ?")
                .bind(0, goalId).bind(1, kind.name()).bind(2, limit).map((rs, ctx) -> entry(rs)).list();
    }

    @Override
    default int countGoalEntries(String goalId) {
        return handle().createQuery("SELECT count(*) FROM goal_entries WHERE goal_id = ?").bind(0, goalId)
                .mapTo(Integer.class).one();
    }
}
