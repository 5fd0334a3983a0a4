package dev.engram.memory;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** {@link NoteStore} over the SQLite store. */
final class SqliteNotes implements NoteStore {
    private final SqliteMemoryStore store;

    SqliteNotes(SqliteMemoryStore store) {
        this.store = store;
    }

    private static Note row(ResultSet rs) throws SQLException {
        return new Note(rs.getString("id"), rs.getString("user_id"), rs.getString("content"),
                SqlTimes.fromMicros(rs.getLong("created_at")), SqlTimes.fromMicros(rs.getLong("updated_at")));
    }

    @Override
    public Note save(String userId, String content) {
        Checks.id(userId, "user id");
        MemoryErrors.checkContent(content, "note content");
        return store.write(h -> {
            String id = Ids.next("note");
            Instant now = store.now();
            long micros = SqlTimes.toMicros(now);
            h.createUpdate("INSERT INTO notes (id, user_id, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
                    .bind(0, id).bind(1, userId).bind(2, content).bind(3, micros).bind(4, micros).execute();
            SqliteMemoryStore.recordChange(h, ChangeEvent.Entity.NOTE, id, ChangeEvent.Op.UPSERT, userId, null);
            return new Note(id, userId, content, now, now);
        });
    }

    @Override
    public Note update(String userId, String noteId, String content) {
        Checks.id(userId, "user id");
        Checks.notNull(noteId, "note id");
        MemoryErrors.checkContent(content, "note content");
        return store.write(h -> {
            Note existing = h.createQuery("SELECT * FROM notes WHERE id = ? AND user_id = ?").bind(0, noteId).bind(1, userId)
                    .map((rs, ctx) -> row(rs)).findOne().orElseThrow(() -> MemoryErrors.noNote(noteId));
            Instant now = store.now();
            h.createUpdate("UPDATE notes SET content = ?, updated_at = ? WHERE id = ? AND user_id = ?")
                    .bind(0, content).bind(1, SqlTimes.toMicros(now)).bind(2, noteId).bind(3, userId).execute();
            SqliteMemoryStore.recordChange(h, ChangeEvent.Entity.NOTE, noteId, ChangeEvent.Op.UPSERT, userId, null);
            return new Note(noteId, userId, content, existing.createdAt(), now);
        });
    }

    @Override
    public boolean delete(String userId, String noteId) {
        Checks.id(userId, "user id");
        Checks.notNull(noteId, "note id");
        return store.write(h -> {
            int n = h.createUpdate("DELETE FROM notes WHERE id = ? AND user_id = ?").bind(0, noteId).bind(1, userId).execute();
            if (n > 0) {
                SqliteMemoryStore.recordChange(h, ChangeEvent.Entity.NOTE, noteId, ChangeEvent.Op.DELETE, userId, null);
            }
            return n > 0;
        });
    }

    @Override
    public Optional<Note> get(String userId, String noteId) {
        Checks.id(userId, "user id");
        Checks.notNull(noteId, "note id");
        return store.read(h -> h.createQuery("SELECT * FROM notes WHERE id = ? AND user_id = ?")
                .bind(0, noteId).bind(1, userId).map((rs, ctx) -> row(rs)).findOne());
    }

    @Override
    public List<Note> list(String userId, int offset, int limit) {
        Checks.id(userId, "user id");
        MemoryErrors.checkPaging(offset, limit);
        return store.read(h -> h.createQuery(
                        "SELECT * FROM notes WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?")
                .bind(0, userId).bind(1, limit).bind(2, offset).map((rs, ctx) -> row(rs)).list());
    }

    @Override
    public long count(String userId) {
        Checks.id(userId, "user id");
        return store.read(h -> h.createQuery("SELECT count(*) FROM notes WHERE user_id = ?").bind(0, userId)
                .mapTo(Long.class).one());
    }
}
