package dev.engram.memory;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.statement.Query;

/** {@link MessageStore} over the SQLite store. */
final class SqliteMessages implements MessageStore {
    private final SqliteMemoryStore store;

    SqliteMessages(SqliteMemoryStore store) {
        this.store = store;
    }

    private static ConversationMessage row(ResultSet rs) throws SQLException {
        return new ConversationMessage(rs.getLong("id"), rs.getString("agent_id"), rs.getString("user_id"),
                rs.getString("session_id"), MessageRole.valueOf(rs.getString("role")), rs.getString("content"),
                JsonColumns.toolCalls(rs.getString("tool_calls")), Optional.ofNullable(rs.getString("tool_call_id")),
                SqlTimes.fromMicros(rs.getLong("created_at")), rs.getInt("in_context") != 0);
    }

    @Override
    public ConversationMessage append(Scope scope, NewMessage message) {
        return appendAll(scope, List.of(message)).get(0);
    }

    @Override
    public List<ConversationMessage> appendAll(Scope scope, List<NewMessage> messages) {
        Checks.notNull(scope, "scope");
        Checks.noNulls(messages, "messages");
        return store.write(h -> {
            Instant now = store.now();
            long micros = SqlTimes.toMicros(now);
            List<ConversationMessage> out = new ArrayList<>(messages.size());
            for (NewMessage m : messages) {
                h.createUpdate("""
                        INSERT INTO messages (user_id, agent_id, session_id, role, content, tool_calls, tool_call_id,
                                              created_at, in_context)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)""")
                        .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, m.sessionId()).bind(3, m.role().name())
                        .bind(4, m.content()).bind(5, JsonColumns.toolCalls(m.toolCalls()))
                        .bind(6, m.toolCallId().orElse(null)).bind(7, micros).execute();
                long id = h.createQuery("SELECT last_insert_rowid()").mapTo(Long.class).one();
                SqliteMemoryStore.recordChange(h, ChangeEvent.Entity.MESSAGE, Long.toString(id), ChangeEvent.Op.UPSERT,
                        scope.userId(), scope.agentId());
                out.add(new ConversationMessage(id, scope.agentId(), scope.userId(), m.sessionId(), m.role(), m.content(),
                        m.toolCalls(), m.toolCallId(), now, true));
            }
            return out;
        });
    }

    @Override
    public Optional<ConversationMessage> get(Scope scope, long id) {
        Checks.notNull(scope, "scope");
        return store.read(h -> h.createQuery("SELECT * FROM messages WHERE id = ? AND user_id = ? AND agent_id = ?")
                .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).map((rs, ctx) -> row(rs)).findOne());
    }

    @Override
    public List<ConversationMessage> list(Scope scope, MessageQuery q) {
        Checks.notNull(scope, "scope");
        Checks.notNull(q, "query");
        StringBuilder sql = new StringBuilder("SELECT * FROM messages WHERE user_id = :u AND agent_id = :a");
        q.sessionId().ifPresent(s -> sql.append(" AND session_id = :s"));
        q.afterId().ifPresent(s -> sql.append(" AND id > :after"));
        q.beforeId().ifPresent(s -> sql.append(" AND id < :before"));
        q.from().ifPresent(s -> sql.append(" AND created_at >= :from"));
        q.until().ifPresent(s -> sql.append(" AND created_at < :until"));
        if (q.inContextOnly()) {
            sql.append(" AND in_context = 1");
        }
        sql.append(q.newestFirst() ? " ORDER BY id DESC" : " ORDER BY id").append(" LIMIT :limit");
        List<ConversationMessage> result = store.read(h -> {
            Query query = h.createQuery(sql.toString()).bind("u", scope.userId()).bind("a", scope.agentId())
                    .bind("limit", q.limit());
            q.sessionId().ifPresent(s -> query.bind("s", s));
            q.afterId().ifPresent(s -> query.bind("after", s));
            q.beforeId().ifPresent(s -> query.bind("before", s));
            q.from().ifPresent(s -> query.bind("from", SqlTimes.toMicros(s)));
            q.until().ifPresent(s -> query.bind("until", SqlTimes.toMicros(s)));
            return query.map((rs, ctx) -> row(rs)).list();
        });
        if (q.newestFirst()) {
            List<ConversationMessage> copy = new ArrayList<>(result);
            Collections.reverse(copy);
            return copy;
        }
        return result;
    }

    @Override
    public long count(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(h -> h.createQuery("SELECT count(*) FROM messages WHERE user_id = ? AND agent_id = ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).mapTo(Long.class).one());
    }

    @Override
    public int markOutOfContext(Scope scope, Collection<Long> ids) {
        Checks.notNull(scope, "scope");
        Checks.noNulls(ids, "ids");
        if (ids.isEmpty()) {
            return 0;
        }
        return store.write(h -> {
            int changed = 0;
            for (Long id : ids) {
                changed += h.createUpdate("""
                        UPDATE messages SET in_context = 0 WHERE id = ? AND user_id = ? AND agent_id = ? AND in_context = 1""")
                        .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).execute();
            }
            return changed;
        });
    }
}
