package dev.engram.memory.sqlite;

import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.jdbi.v3.core.statement.DefaultStatementBuilder;
import org.jdbi.v3.core.statement.StatementBuilder;
import org.jdbi.v3.core.statement.StatementBuilderFactory;
import org.jdbi.v3.core.statement.StatementContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConnection;

/**
 * Prepared statements kept per SQLite connection and used again: a store call runs a handful of statements, and
 * preparing each anew (SQLite compiling its text, sqlite-jdbc allocating its handle, then finalising it) cost as much
 * as running it. A statement is prepared on the connection itself (beneath the reader pool's proxy, which would close
 * it when the connection goes back to the pool), taken out of the connection's cache while in use (so two open at once
 * with the same text never share one), and put back when Jdbi closes it, its parameters cleared; its result set is
 * closed before that, which resets it, so a kept statement holds no read transaction open. At most {@link #PER_CONNECTION}
 * are kept per connection, the least recently used closed first; statements that return generated keys or
 * updatable result sets are not kept. The connections' caches are held here; a closed connection's is dropped.
 */
final class SqliteStatements implements StatementBuilderFactory {
    private static final Logger LOG = LoggerFactory.getLogger(SqliteStatements.class);
    /** Statements kept per connection: more than the store's distinct hot statements. */
    static final int PER_CONNECTION = 128;

    private final Map<Connection, Cache> caches = new ConcurrentHashMap<>();
    private final StatementBuilder plain = new DefaultStatementBuilder();
    private final Builder builder = new Builder();
    /** Statements run (each Jdbi statement, kept or not). */
    private final LongAdder run = new LongAdder();

    @Override
    public StatementBuilder createStatementBuilder(Connection connection) {
        return builder;
    }

    /** How many statements are kept now over all connections (for tests). */
    int kept() {
        return caches.values().stream().mapToInt(Cache::size).sum();
    }

    /** How many statements were prepared (not taken from a cache) on the connections open now (for tests). */
    long prepared() {
        return caches.values().stream().mapToLong(Cache::prepared).sum();
    }

    /** How many statements were run through this store's connections since it opened (for tests: statements per step). */
    long run() {
        return run.sum();
    }

    /** Closes every kept statement (the backend closes, its connections next). */
    void closeAll() {
        for (Cache c : caches.values()) {
            c.closeIdle();
        }
        caches.clear();
    }

    /** The statements of one connection, used only by the thread that holds the connection. */
    private static final class Cache {
        final Connection raw;
        final LinkedHashMap<String, PreparedStatement> idle = new LinkedHashMap<>(32, 0.75f, true);
        /** Statements of this cache in use now, with the text each was prepared from (Jdbi closes it naming its source). */
        final Map<Statement, String> lent = new IdentityHashMap<>();
        long prepared;

        Cache(Connection raw) {
            this.raw = raw;
        }

        synchronized int size() {
            return idle.size();
        }

        synchronized long prepared() {
            return prepared;
        }

        synchronized void closeIdle() {
            for (PreparedStatement s : idle.values()) {
                try {
                    s.close();
                } catch (SQLException e) {
                    LOG.debug("Closing a kept statement failed", e);
                }
            }
            idle.clear();
        }

        synchronized PreparedStatement take(String sql) throws SQLException {
            PreparedStatement s = idle.remove(sql);
            if (s == null || s.isClosed()) {
                s = raw.prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
                prepared++;
            }
            lent.put(s, sql);
            return s;
        }

        /** Whether {@code s} was lent by this cache; if so it is kept again (or closed when the cache is full). */
        synchronized boolean giveBack(Statement s) throws SQLException {
            String sql = lent.remove(s);
            if (sql == null) {
                return false;
            }
            if (s.isClosed()) {
                return true;
            }
            PreparedStatement p = (PreparedStatement) s;
            p.clearParameters();
            PreparedStatement before = idle.putIfAbsent(sql, p);
            if (before != null) {
                p.close(); // another of the same text was given back first
                return true;
            }
            if (idle.size() > PER_CONNECTION) {
                Iterator<PreparedStatement> oldest = idle.values().iterator();
                PreparedStatement evicted = oldest.next();
                oldest.remove();
                evicted.close();
            }
            return true;
        }
    }

    private Cache cacheOf(Connection connection) throws SQLException {
        Connection raw = connection.isWrapperFor(SQLiteConnection.class) ? connection.unwrap(SQLiteConnection.class) : connection;
        Cache cache = caches.get(raw);
        if (cache == null) {
            // A new connection: the pool may have closed others since; their caches go.
            List<Connection> gone = new ArrayList<>();
            for (Connection c : caches.keySet()) {
                if (c.isClosed()) {
                    gone.add(c);
                }
            }
            gone.forEach(caches::remove);
            cache = caches.computeIfAbsent(raw, Cache::new);
        }
        return cache;
    }

    private final class Builder implements StatementBuilder {
        @Override
        public Statement create(Connection conn, StatementContext ctx) throws SQLException {
            run.increment();
            return plain.create(conn, ctx);
        }

        @Override
        public PreparedStatement create(Connection conn, String sql, StatementContext ctx) throws SQLException {
            run.increment();
            if (ctx.isReturningGeneratedKeys() || ctx.isConcurrentUpdatable()) {
                return plain.create(conn, sql, ctx);
            }
            return cacheOf(conn).take(sql);
        }

        @Override
        public CallableStatement createCall(Connection conn, String sql, StatementContext ctx) throws SQLException {
            return plain.createCall(conn, sql, ctx);
        }

        @Override
        public void close(Connection conn, String sql, Statement stmt) throws SQLException {
            if (stmt == null) {
                return;
            }
            Cache cache;
            try {
                cache = cacheOf(conn);
            } catch (SQLException e) {
                LOG.debug("Closing a statement of a connection that failed", e);
                stmt.close();
                return;
            }
            try {
                if (!cache.giveBack(stmt)) {
                    plain.close(conn, sql, stmt);
                }
            } catch (SQLException e) {
                stmt.close();
                throw e;
            }
        }
    }
}
