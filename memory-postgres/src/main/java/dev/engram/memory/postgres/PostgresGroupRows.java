package dev.engram.memory.postgres;

import dev.engram.memory.Group;
import dev.engram.memory.GroupManager;
import dev.engram.memory.GroupSpec;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.mapper.RowMapper;

/** The group rows of {@link PostgresRows} (multi-agent groups), as {@code SqliteGroupRows}. */
interface PostgresGroupRows extends Rows {
    /** Runs an update with positional arguments; returns the rows changed. */
    int exec(String sql, Object... args);

    /** Runs a query with positional arguments. */
    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args);

    /** The first row of a query, if any. */
    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args);

    private static Optional<Integer> optionalInt(ResultSet rs, String column) throws SQLException {
        int value = rs.getInt(column);
        return rs.wasNull() ? Optional.empty() : Optional.of(value);
    }

    private static Group group(ResultSet rs) throws SQLException {
        GroupManager manager = new GroupManager(GroupManager.Type.valueOf(rs.getString("manager_type")),
                Optional.ofNullable(rs.getString("manager_agent_id")), optionalInt(rs, "max_turns"),
                Optional.ofNullable(rs.getString("termination_token")), optionalInt(rs, "sleeptime_agent_frequency"));
        GroupSpec spec = new GroupSpec(rs.getString("description"), manager, Columns.tags(rs.getString("agent_ids")),
                Columns.tags(rs.getString("shared_block_ids")), rs.getBoolean("hidden"));
        return new Group(rs.getString("id"), rs.getString("user_id"), spec, rs.getInt("turns_counter"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")));
    }

    private static Object intOrNull(Optional<Integer> value) {
        return value.<Object>map(v -> v).orElse(new PostgresRows.Null(Types.INTEGER));
    }

    @Override
    default void putGroup(Group g) {
        GroupManager m = g.spec().manager();
        exec("INSERT INTO agent_groups (id, user_id, description, manager_type, manager_agent_id, max_turns, "
                + "termination_token, sleeptime_agent_frequency, agent_ids, shared_block_ids, hidden, turns_counter, "
                + "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                + "description = excluded.description, manager_type = excluded.manager_type, "
                + "manager_agent_id = excluded.manager_agent_id, max_turns = excluded.max_turns, "
                + "termination_token = excluded.termination_token, "
                + "sleeptime_agent_frequency = excluded.sleeptime_agent_frequency, agent_ids = excluded.agent_ids, "
                + "shared_block_ids = excluded.shared_block_ids, hidden = excluded.hidden, "
                + "turns_counter = excluded.turns_counter, updated_at = excluded.updated_at",
                g.id(), g.userId(), g.spec().description(), m.type().name(), m.managerAgentId().orElse(null),
                intOrNull(m.maxTurns()), m.terminationToken().orElse(null), intOrNull(m.sleeptimeAgentFrequency()),
                Columns.tagsJson(g.spec().agentIds()), Columns.tagsJson(g.spec().sharedBlockIds()), g.spec().hidden(),
                g.turnsCounter(), Columns.micros(g.createdAt()), Columns.micros(g.updatedAt()));
    }

    @Override
    default Optional<Group> group(String userId, String id) {
        return one("SELECT * FROM agent_groups WHERE id = ? AND user_id = ?", (rs, c) -> group(rs), id, userId);
    }

    @Override
    default List<Group> listGroups(String userId) {
        return query("SELECT * FROM agent_groups WHERE user_id = ? ORDER BY created_at, id", (rs, c) -> group(rs), userId);
    }

    @Override
    default boolean deleteGroup(String userId, String id) {
        return exec("DELETE FROM agent_groups WHERE id = ? AND user_id = ?", id, userId) > 0;
    }
}
