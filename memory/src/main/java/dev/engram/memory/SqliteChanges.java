package dev.engram.memory;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@link ChangeLog} over the SQLite store's {@code changes} table. {@link #knownLastSeq()} answers
 * from memory while no write transaction has ended through this store since the last query.
 */
final class SqliteChanges implements ChangeLog {
    /** The newest sequence number read from the table, and the store's write count before that read. */
    private record Known(long writes, long seq) {
    }

    private final SqliteMemoryStore store;
    private final AtomicReference<Known> known = new AtomicReference<>(new Known(-1, 0));

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
        // The write count is read before the query, so the answer covers at least every write it counts.
        long writes = store.endedWrites();
        long seq = store.read(h -> h.createQuery("SELECT coalesce(max(seq), 0) FROM changes").mapTo(Long.class).one());
        known.accumulateAndGet(new Known(writes, seq), (a, b) -> new Known(Math.max(a.writes(), b.writes()),
                Math.max(a.seq(), b.seq())));
        return seq;
    }

    @Override
    public long knownLastSeq() {
        Known k = known.get();
        return k.writes() >= store.endedWrites() ? k.seq() : lastSeq();
    }
}
