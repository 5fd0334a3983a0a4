package dev.engram.memory.postgres;

import dev.engram.memory.Goal;
import dev.engram.memory.GoalEntry;
import dev.engram.memory.Scope;
import dev.engram.memory.TodoItem;
import dev.engram.memory.TodoStatus;
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

/**
 * The work-state rows of {@link PostgresRows} (todos, goals and their entries), over its statement helpers, as
 * {@code SqliteWorkRows}; goals and entries come back in insertion order (their {@code seq}).
 */
interface PostgresWorkRows extends Rows {
    /** Runs an update with positional arguments; returns the rows changed. */
    int exec(String sql, Object... args);

    /** Runs a query with positional arguments. */
    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args);

    /** The first row of a query, if any. */
    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args);

    private static Goal goal(ResultSet rs) throws SQLException {
        long completed = rs.getLong("completed_at");
        Optional<Instant> completedAt = rs.wasNull() ? Optional.empty() : Optional.of(Columns.instant(completed));
        return new Goal(rs.getString("id"), rs.getString("user_id"), rs.getString("agent_id"), rs.getString("title"),
                rs.getString("description"), rs.getBoolean("completed"), rs.getBoolean("is_current"),
                rs.getString("outcome"), Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")),
                completedAt);
    }

    private static GoalEntry entry(ResultSet rs) throws SQLException {
        return new GoalEntry(rs.getString("id"), rs.getString("goal_id"), GoalEntry.Kind.valueOf(rs.getString("kind")),
                rs.getString("text"), rs.getString("rationale"), Columns.instant(rs.getLong("created_at")));
    }

    @Override
    default List<TodoItem> todos(Scope scope) {
        return query("SELECT content, status FROM todos WHERE user_id = ? AND agent_id = ? ORDER BY position",
                (rs, c) -> new TodoItem(rs.getString("content"), TodoStatus.valueOf(rs.getString("status"))),
                scope.userId(), scope.agentId());
    }

    @Override
    default void replaceTodos(Scope scope, List<TodoItem> todos, Instant at) {
        exec("DELETE FROM todos WHERE user_id = ? AND agent_id = ?", scope.userId(), scope.agentId());
        if (todos.isEmpty()) {
            return;
        }
        StringBuilder sql = new StringBuilder("INSERT INTO todos (user_id, agent_id, position, content, status, updated_at) VALUES ");
        List<Object> args = new ArrayList<>();
        for (int i = 0; i < todos.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(?, ?, ?, ?, ?, ?)");
            args.addAll(List.of(scope.userId(), scope.agentId(), i, todos.get(i).content(), todos.get(i).status().name(),
                    Columns.micros(at)));
        }
        exec(sql.toString(), args.toArray());
    }

    @Override
    default void putGoal(Goal g) {
        exec("INSERT INTO goals (id, user_id, agent_id, title, description, completed, is_current, outcome, created_at, "
                + "updated_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                + "completed = excluded.completed, is_current = excluded.is_current, outcome = excluded.outcome, "
                + "updated_at = excluded.updated_at, completed_at = excluded.completed_at",
                g.id(), g.userId(), g.agentId(), g.title(), g.description(), g.completed(), g.current(), g.outcome(),
                Columns.micros(g.createdAt()), Columns.micros(g.updatedAt()),
                g.completedAt().<Object>map(Columns::micros).orElse(new PostgresRows.Null(Types.BIGINT)));
    }

    @Override
    default Optional<Goal> goal(String id) {
        return one("SELECT * FROM goals WHERE id = ?", (rs, c) -> goal(rs), id);
    }

    @Override
    default List<Goal> goals(Scope scope) {
        return query("SELECT * FROM goals WHERE user_id = ? AND agent_id = ? ORDER BY seq", (rs, c) -> goal(rs),
                scope.userId(), scope.agentId());
    }

    @Override
    default void insertGoalEntry(Scope scope, GoalEntry e) {
        exec("INSERT INTO goal_entries (id, goal_id, user_id, agent_id, kind, text, rationale, created_at) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", e.id(), e.goalId(), scope.userId(), scope.agentId(), e.kind().name(),
                e.text(), e.rationale(), Columns.micros(e.createdAt()));
    }

    @Override
    default List<GoalEntry> goalEntries(String goalId, GoalEntry.Kind kind, int limit) {
        return query("SELECT * FROM goal_entries WHERE goal_id = ? AND kind = ? ORDER BY seq DESC LIMIT ?",
                (rs, c) -> entry(rs), goalId, kind.name(), limit);
    }

    @Override
    default int countGoalEntries(String goalId) {
        return one("SELECT count(*) AS n FROM goal_entries WHERE goal_id = ?", (rs, c) -> rs.getInt("n"), goalId).orElse(0);
    }
}
