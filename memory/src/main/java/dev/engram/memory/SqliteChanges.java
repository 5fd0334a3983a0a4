package dev.engram.memory;

import java.util.List;
import java.util.Optional;

/** {@link ChangeLog} over the SQLite store's {@code changes} table. */
final class SqliteChanges implements ChangeLog {
    private final SqliteMemoryStore store;

    SqliteChanges(SqliteMemoryStore store) {
        this.store = store;
    }

    @Override
    public List<ChangeEvent> since(long afterSeq, int max) {
        if (max <= 0) {
            throw new IllegalArgumentException("max must be positive, got " + max);
        }
        return store.read(h -> h.createQuery("""
                SELECT seq, entity, entity_id, op, user_id, agent_id FROM changes WHERE seq > ? ORDER BY seq LIMIT ?""")
                .bind(0, afterSeq).bind(1, max)
                .map((rs, ctx) -> new ChangeEvent(rs.getLong("seq"), ChangeEvent.Entity.valueOf(rs.getString("entity")),
                        rs.getString("entity_id"), ChangeEvent.Op.valueOf(rs.getString("op")), rs.getString("user_id"),
                        Optional.ofNullable(rs.getString("agent_id"))))
                .list());
    }

    @Override
    public long lastSeq() {
        return store.read(h -> h.createQuery("SELECT coalesce(max(seq), 0) FROM changes").mapTo(Long.class).one());
    }
}
