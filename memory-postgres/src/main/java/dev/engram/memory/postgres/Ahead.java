package dev.engram.memory.postgres;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Statements of a write transaction held back so that they travel with its next statement, in one round trip: a
 * write's advisory lock, a joined write's {@code SAVEPOINT}, a part's {@code SAVEPOINT} and {@code RELEASE}. Each was
 * a round trip of its own (a {@code ServerLoad} message made about seven such trips of some thirty). The held
 * statements and the next one are sent as one string ({@link Statements}: pgjdbc sends each statement of it in the
 * extended protocol and one Sync after the last), so PostgreSQL runs them in order and, if one fails, runs none
 * after it: a lock that fails (a deadlock, a cancel) leaves the statement behind it unrun, and the transaction
 * aborted, as when the two went one after the other.
 *
 * <p>Only statements that change nothing by themselves are held: a lock or a savepoint with nothing run after it is
 * worth nothing, so what is still held at the commit (or a rollback) is dropped. Rollbacks are never held; a rollback
 * to a savepoint still held drops the held statements from that savepoint on instead (nothing after it was sent).
 * Statements run on the connection by other means than {@link PostgresRows}' own must send what is held first
 * ({@link #flush}).
 */
final class Ahead {
    /** What a held prefix and the statement behind it become: the string, its arguments, the results to skip. */
    record Combined(String sql, Object[] args, int skip) {
    }

    private final List<String> statements = new ArrayList<>();
    private final List<Object[]> args = new ArrayList<>();

    /** Holds {@code sql} (one statement) with its arguments until the next statement. */
    void add(String sql, Object... a) {
        statements.add(sql);
        args.add(a);
    }

    boolean isEmpty() {
        return statements.isEmpty();
    }

    /** Drops what is held (the transaction ends, or was rolled back). */
    void clear() {
        statements.clear();
        args.clear();
    }

    /** The held statements followed by {@code sql}, as one string, and their arguments in order; nothing is held after. */
    Combined take(String sql, Object[] last) {
        StringBuilder out = new StringBuilder();
        List<Object> all = new ArrayList<>();
        for (int i = 0; i < statements.size(); i++) {
            out.append(statements.get(i)).append("; ");
            all.addAll(Arrays.asList(args.get(i)));
        }
        all.addAll(Arrays.asList(last));
        Combined c = new Combined(out.append(sql).toString(), all.toArray(), statements.size());
        clear();
        return c;
    }

    /** Sends what is held now, alone (for a statement about to run on the connection by other means). */
    void flush(Connection c) {
        if (!isEmpty()) {
            Combined k = take("SELECT 1", new Object[0]);
            Statements.exec(c, k.sql(), k.args());
        }
    }

    /** Sets a savepoint {@code name} (held: sent with the next statement). */
    void savepoint(String name) {
        add("SAVEPOINT " + name);
    }

    /** Releases the innermost savepoint {@code name}: if it is still held, it is simply not sent; else the release is held. */
    void release(String name) {
        int i = statements.lastIndexOf("SAVEPOINT " + name);
        if (i >= 0) {
            statements.remove(i);
            args.remove(i);
        } else {
            add("RELEASE SAVEPOINT " + name);
        }
    }

    /**
     * Rolls back to the innermost savepoint {@code name} (and releases it with {@code andRelease}): when it is still
     * held, nothing after it was sent, so the held statements from it on are dropped and nothing is sent; else what is
     * held (all after it) is dropped and the rollback is sent now.
     */
    void rollbackTo(Connection c, String name, boolean andRelease) {
        int i = statements.lastIndexOf("SAVEPOINT " + name);
        if (i >= 0) {
            statements.subList(i, statements.size()).clear();
            args.subList(i, args.size()).clear();
            return;
        }
        clear();
        Statements.exec(c, "ROLLBACK TO SAVEPOINT " + name + (andRelease ? "; RELEASE SAVEPOINT " + name : ""));
    }
}
