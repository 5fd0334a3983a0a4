package dev.engram.memory;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;

/** {@link ArchivalStore} over the SQLite store. */
final class SqliteArchival implements ArchivalStore {
    private final SqliteMemoryStore store;

    SqliteArchival(SqliteMemoryStore store) {
        this.store = store;
    }

    static ArchivalEntry row(ResultSet rs) throws SQLException {
        return new ArchivalEntry(rs.getString("id"), Optional.ofNullable(rs.getString("label")), rs.getString("content"),
                JsonColumns.tags(rs.getString("tags")), SqlTimes.fromMicros(rs.getLong("created_at")),
                SqlTimes.fromMicros(rs.getLong("updated_at")));
    }

    static Optional<ArchivalEntry> byLabel(Handle h, Scope scope, String label) {
        return h.createQuery("SELECT * FROM archival WHERE user_id = ? AND agent_id = ? AND label = ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, label)
                .map((rs, ctx) -> row(rs)).findOne();
    }

    /** Inserts without recording a change; callers record it. */
    static ArchivalEntry insert(Handle h, Scope scope, NewArchivalEntry entry, Instant now) {
        if (entry.label().isPresent() && byLabel(h, scope, entry.label().get()).isPresent()) {
            throw MemoryErrors.duplicateArchival(entry.label().get());
        }
        String id = Ids.next("archival");
        long micros = SqlTimes.toMicros(now);
        h.createUpdate("""
                INSERT INTO archival (id, user_id, agent_id, label, content, tags, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)""")
                .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).bind(3, entry.label().orElse(null))
                .bind(4, entry.content()).bind(5, JsonColumns.tags(entry.tags())).bind(6, micros).bind(7, micros)
                .execute();
        return new ArchivalEntry(id, entry.label(), entry.content(), entry.tags(), now, now);
    }

    @Override
    public ArchivalEntry insert(Scope scope, NewArchivalEntry entry) {
        return insertAll(scope, List.of(entry)).get(0);
    }

    @Override
    public List<ArchivalEntry> insertAll(Scope scope, List<NewArchivalEntry> entries) {
        Checks.notNull(scope, "scope");
        Checks.noNulls(entries, "entries");
        if (entries.isEmpty()) {
            return List.of();
        }
        return store.write(h -> {
            Instant now = store.now();
            long micros = SqlTimes.toMicros(now);
            Set<String> labels = new HashSet<>();
            for (NewArchivalEntry e : entries) {
                if (e.label().isPresent() && (!labels.add(e.label().get()) || byLabel(h, scope, e.label().get()).isPresent())) {
                    throw MemoryErrors.duplicateArchival(e.label().get());
                }
            }
            // One prepared statement per table for the whole batch.
            PreparedBatch rows = h.prepareBatch("""
                    INSERT INTO archival (id, user_id, agent_id, label, content, tags, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)""");
            PreparedBatch changes = h.prepareBatch(SqliteMemoryStore.INSERT_CHANGE);
            List<ArchivalEntry> out = new ArrayList<>(entries.size());
            for (NewArchivalEntry e : entries) {
                String id = Ids.next("archival");
                rows.bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).bind(3, e.label().orElse(null))
                        .bind(4, e.content()).bind(5, JsonColumns.tags(e.tags())).bind(6, micros).bind(7, micros).add();
                changes.bind(0, ChangeEvent.Entity.ARCHIVAL.name()).bind(1, id).bind(2, ChangeEvent.Op.UPSERT.name())
                        .bind(3, scope.userId()).bind(4, scope.agentId()).add();
                out.add(new ArchivalEntry(id, e.label(), e.content(), e.tags(), now, now));
            }
            rows.execute();
            changes.execute();
            return out;
        });
    }

    @Override
    public ArchivalEntry append(Scope scope, String label, String text) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        Checks.text(text, "text");
        return store.write(h -> {
            ArchivalEntry e = byLabel(h, scope, label).orElseThrow(() -> MemoryErrors.noArchivalLabel(label));
            Instant now = store.now();
            String content = e.content() + text;
            h.createUpdate("UPDATE archival SET content = ?, updated_at = ? WHERE id = ?")
                    .bind(0, content).bind(1, SqlTimes.toMicros(now)).bind(2, e.id()).execute();
            SqliteMemoryStore.recordChange(h, ChangeEvent.Entity.ARCHIVAL, e.id(), ChangeEvent.Op.UPSERT,
                    scope.userId(), scope.agentId());
            return new ArchivalEntry(e.id(), e.label(), content, e.tags(), e.createdAt(), now);
        });
    }

    @Override
    public Optional<ArchivalEntry> get(Scope scope, String id) {
        Checks.notNull(scope, "scope");
        Checks.notNull(id, "id");
        return store.read(h -> h.createQuery("SELECT * FROM archival WHERE id = ? AND user_id = ? AND agent_id = ?")
                .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId())
                .map((rs, ctx) -> row(rs)).findOne());
    }

    @Override
    public Optional<ArchivalEntry> getByLabel(Scope scope, String label) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        return store.read(h -> byLabel(h, scope, label));
    }

    @Override
    public boolean delete(Scope scope, String id) {
        Checks.notNull(scope, "scope");
        Checks.notNull(id, "id");
        return store.write(h -> {
            int n = h.createUpdate("DELETE FROM archival WHERE id = ? AND user_id = ? AND agent_id = ?")
                    .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).execute();
            if (n > 0) {
                SqliteMemoryStore.recordChange(h, ChangeEvent.Entity.ARCHIVAL, id, ChangeEvent.Op.DELETE,
                        scope.userId(), scope.agentId());
            }
            return n > 0;
        });
    }

    @Override
    public List<ArchivalEntry> list(Scope scope, int offset, int limit) {
        Checks.notNull(scope, "scope");
        MemoryErrors.checkPaging(offset, limit);
        return store.read(h -> h.createQuery("""
                SELECT * FROM archival WHERE user_id = ? AND agent_id = ?
                ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?""")
                .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, limit).bind(3, offset)
                .map((rs, ctx) -> row(rs)).list());
    }

    @Override
    public long count(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(h -> h.createQuery("SELECT count(*) FROM archival WHERE user_id = ? AND agent_id = ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).mapTo(Long.class).one());
    }
}
