package dev.engram.memory;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** {@link AgentStore} over the SQLite store. */
final class SqliteAgents implements AgentStore {
    private final SqliteMemoryStore store;

    SqliteAgents(SqliteMemoryStore store) {
        this.store = store;
    }

    private static AgentRecord row(ResultSet rs) throws SQLException {
        return new AgentRecord(Scope.of(rs.getString("user_id"), rs.getString("agent_id")), rs.getString("name"),
                rs.getString("definition"), SqlTimes.fromMicros(rs.getLong("created_at")),
                SqlTimes.fromMicros(rs.getLong("updated_at")));
    }

    private static Optional<AgentRecord> find(Handle h, Scope scope) {
        return h.createQuery("SELECT * FROM agents WHERE user_id = ? AND agent_id = ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).map((rs, ctx) -> row(rs)).findOne();
    }

    private static Optional<AgentRecord> findName(Handle h, String userId, String name) {
        return h.createQuery("SELECT * FROM agents WHERE user_id = ? AND name = ?")
                .bind(0, userId).bind(1, name).map((rs, ctx) -> row(rs)).findOne();
    }

    @Override
    public AgentRecord create(Scope scope, String name, String definition) {
        Checks.notNull(scope, "scope");
        MemoryErrors.checkAgent(name, definition);
        return store.write(h -> {
            if (find(h, scope).isPresent()) {
                throw MemoryErrors.duplicateAgentId(scope);
            }
            if (findName(h, scope.userId(), name).isPresent()) {
                throw MemoryErrors.duplicateAgentName(scope.userId(), name);
            }
            Instant now = store.now();
            long micros = SqlTimes.toMicros(now);
            h.createUpdate("INSERT INTO agents (user_id, agent_id, name, definition, created_at, updated_at) "
                            + "VALUES (?, ?, ?, ?, ?, ?)")
                    .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, name).bind(3, definition)
                    .bind(4, micros).bind(5, micros).execute();
            return new AgentRecord(scope, name, definition, now, now);
        });
    }

    @Override
    public AgentRecord update(Scope scope, String name, String definition) {
        Checks.notNull(scope, "scope");
        MemoryErrors.checkAgent(name, definition);
        return store.write(h -> {
            AgentRecord existing = find(h, scope).orElseThrow(() -> MemoryErrors.noAgent(scope));
            Optional<AgentRecord> named = findName(h, scope.userId(), name);
            if (named.isPresent() && !named.get().scope().equals(scope)) {
                throw MemoryErrors.duplicateAgentName(scope.userId(), name);
            }
            Instant now = store.now();
            h.createUpdate("UPDATE agents SET name = ?, definition = ?, updated_at = ? WHERE user_id = ? AND agent_id = ?")
                    .bind(0, name).bind(1, definition).bind(2, SqlTimes.toMicros(now))
                    .bind(3, scope.userId()).bind(4, scope.agentId()).execute();
            return new AgentRecord(scope, name, definition, existing.createdAt(), now);
        });
    }

    @Override
    public Optional<AgentRecord> get(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(h -> find(h, scope));
    }

    @Override
    public Optional<AgentRecord> findByName(String userId, String name) {
        Checks.id(userId, "user id");
        Checks.notNull(name, "agent name");
        return store.read(h -> findName(h, userId, name));
    }

    @Override
    public List<AgentRecord> list(String userId) {
        Checks.id(userId, "user id");
        return store.read(h -> h.createQuery("SELECT * FROM agents WHERE user_id = ? ORDER BY name")
                .bind(0, userId).map((rs, ctx) -> row(rs)).list());
    }

    @Override
    public boolean delete(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.write(h -> h.createUpdate("DELETE FROM agents WHERE user_id = ? AND agent_id = ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).execute() > 0);
    }
}
