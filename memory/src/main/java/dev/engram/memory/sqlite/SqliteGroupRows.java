package dev.engram.memory.sqlite;

import dev.engram.memory.Group;
import dev.engram.memory.GroupManager;
import dev.engram.memory.GroupSpec;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** The group rows of {@link SqliteRows} (multi-agent groups), on the handle of its transaction. */
interface SqliteGroupRows extends Rows {
    /** The handle of the transaction (or read) the rows work in. */
    Handle handle();

    private static Group group(ResultSet rs) throws SQLException {
        GroupManager manager = new GroupManager(GroupManager.Type.valueOf(rs.getString("manager_type")),
                Optional.ofNullable(rs.getString("manager_agent_id")), optionalInt(rs, "max_turns"),
                Optional.ofNullable(rs.getString("termination_token")),
                optionalInt(rs, "sleeptime_agent_frequency"));
        GroupSpec spec = new GroupSpec(rs.getString("description"), manager, Columns.tags(rs.getString("agent_ids")),
                Columns.tags(rs.getString("shared_block_ids")), rs.getInt("hidden") != 0);
        return new Group(rs.getString("id"), rs.getString("user_id"), spec, rs.getInt("turns_counter"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")));
    }

    private static Optional<Integer> optionalInt(ResultSet rs, String column) throws SQLException {
        int value = rs.getInt(column);
        return rs.wasNull() ? Optional.empty() : Optional.of(value);
    }

    @Override
    default void putGroup(Group g) {
        GroupManager m = g.spec().manager();
        handle().createUpdate("INSERT INTO agent_groups (id, user_id, description, manager_type, manager_agent_id, max_turns, "
                        + "termination_token, sleeptime_agent_frequency, agent_ids, shared_block_ids, hidden, turns_counter, "
                        + "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                        + "description = excluded.description, manager_type = excluded.manager_type, "
                        + "manager_agent_id = excluded.manager_agent_id, max_turns = excluded.max_turns, "
                        + "termination_token = excluded.termination_token, "
                        + "sleeptime_agent_frequency = excluded.sleeptime_agent_frequency, agent_ids = excluded.agent_ids, "
                        + "shared_block_ids = excluded.shared_block_ids, hidden = excluded.hidden, "
                        + "turns_counter = excluded.turns_counter, updated_at = excluded.updated_at")
                .bind(0, g.id()).bind(1, g.userId()).bind(2, g.spec().description()).bind(3, m.type().name())
                .bind(4, m.managerAgentId().orElse(null)).bind(5, m.maxTurns().orElse(null))
                .bind(6, m.terminationToken().orElse(null)).bind(7, m.sleeptimeAgentFrequency().orElse(null))
                .bind(8, Columns.tagsJson(g.spec().agentIds())).bind(9, Columns.tagsJson(g.spec().sharedBlockIds()))
                .bind(10, g.spec().hidden() ? 1 : 0).bind(11, g.turnsCounter())
                .bind(12, Columns.micros(g.createdAt())).bind(13, Columns.micros(g.updatedAt())).execute();
    }

    @Override
    default Optional<Group> group(String userId, String id) {
        return handle().createQuery("SELECT * FROM agent_groups WHERE id = ? AND user_id = ?").bind(0, id).bind(1, userId)
                .map((rs, ctx) -> group(rs)).findOne();
    }

    @Override
    default List<Group> listGroups(String userId) {
        return handle().createQuery("SELECT * FROM agent_groups WHERE user_id = ? ORDER BY created_at, id").bind(0, userId)
                .map((rs, ctx) -> group(rs)).list();
    }

    @Override
    default boolean deleteGroup(String userId, String id) {
        return handle().createUpdate("DELETE FROM agent_groups WHERE id = ? AND user_id = ?").bind(0, id).bind(1, userId)
                .execute() > 0;
    }
}
