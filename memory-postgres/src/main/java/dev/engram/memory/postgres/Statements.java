package dev.engram.memory.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.UnableToExecuteStatementException;

/**
 * The statements of {@link PostgresRows} on the JDBC connection of its handle, without Jdbi's statement layer: Jdbi
 * builds a statement context, copies its configuration and looks up an argument factory for every argument of every
 * statement, which cost about a tenth of a PostgreSQL server's time under load (a JFR profile of {@code ServerLoad}),
 * for positional arguments whose JDBC setter is known from their type. The driver still keeps each statement prepared
 * on the server from its fifth use on the connection, as under Jdbi. A failure is thrown as Jdbi's {@link
 * UnableToExecuteStatementException} with the driver's {@link SQLException} as its cause, as before, so that {@link
 * PostgresFailures} classifies it the same way. In a write, the statements {@link Ahead} holds back go first, in the
 * same string: pgjdbc sends each of them in the extended protocol and one Sync after the last (one round trip, one
 * result each), and their results are skipped.
 */
final class Statements {
    private Statements() {
    }

    /** Runs {@code sql} (one statement, or several separated by semicolons); returns the first result's update count. */
    static int exec(Connection c, String sql, Object... args) {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, args);
            s.execute();
            return Math.max(0, s.getUpdateCount());
        } catch (SQLException e) {
            throw failed(c, sql, e);
        }
    }

    /**
     * {@link #exec(Connection, String, Object...)} after the statements {@code ahead} holds, in the same round trip;
     * returns the update count of {@code sql}'s (first) result.
     */
    static int exec(Connection c, Ahead ahead, String sql, Object... args) {
        if (ahead == null || ahead.isEmpty()) {
            return exec(c, sql, args);
        }
        Ahead.Combined k = ahead.take(sql, args);
        try (PreparedStatement s = c.prepareStatement(k.sql())) {
            bind(s, k.args());
            s.execute();
            skip(s, k.skip());
            return Math.max(0, s.getUpdateCount());
        } catch (SQLException e) {
            throw failed(c, k.sql(), e);
        }
    }

    /** Runs the query {@code sql} and maps every row (the mappers of these rows read the row only, not the context). */
    static <T> List<T> query(Connection c, String sql, RowMapper<T> mapper, Object... args) {
        return query(c, null, sql, mapper, args);
    }

    /** {@link #query(Connection, String, RowMapper, Object...)} after the statements {@code ahead} holds, in one round trip. */
    static <T> List<T> query(Connection c, Ahead ahead, String sql, RowMapper<T> mapper, Object... args) {
        Ahead.Combined k = ahead == null || ahead.isEmpty() ? new Ahead.Combined(sql, args, 0) : ahead.take(sql, args);
        try (PreparedStatement s = c.prepareStatement(k.sql())) {
            bind(s, k.args());
            ResultSet rs;
            if (k.skip() == 0) {
                rs = s.executeQuery();
            } else {
                s.execute();
                skip(s, k.skip());
                rs = s.getResultSet();
                if (rs == null) {
                    throw new SQLException("the statement returned no rows: " + sql);
                }
            }
            try (rs) {
                List<T> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(mapper.map(rs, null));
                }
                return out;
            }
        } catch (SQLException e) {
            throw failed(c, k.sql(), e);
        }
    }

    /** Moves past the results of the first {@code n} statements (each gives one: rows or a count). */
    private static void skip(PreparedStatement s, int n) throws SQLException {
        for (int i = 0; i < n; i++) {
            s.getMoreResults();
        }
    }

    /**
     * Binds positional arguments by their type, as Jdbi bound them: a {@code null} as a text NULL, a {@link
     * PostgresRows.Null} as a NULL of its type, an enum as its name.
     */
    static void bind(PreparedStatement s, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            int p = i + 1;
            switch (args[i]) {
                case null -> s.setNull(p, Types.VARCHAR);
                case PostgresRows.Null n -> s.setNull(p, n.sqlType());
                case String v -> s.setString(p, v);
                case Long v -> s.setLong(p, v);
                case Integer v -> s.setInt(p, v);
                case Boolean v -> s.setBoolean(p, v);
                case Double v -> s.setDouble(p, v);
                case Float v -> s.setFloat(p, v);
                case Short v -> s.setShort(p, v);
                case byte[] v -> s.setBytes(p, v);
                case Enum<?> v -> s.setString(p, v.name());
                default -> s.setObject(p, args[i]);
            }
        }
    }

    /** The failure of {@code sql} on {@code c}: a lost connection is said to be one ({@link PostgresFailures#onConnection}). */
    private static UnableToExecuteStatementException failed(Connection c, String sql, SQLException e) {
        return new UnableToExecuteStatementException("Statement failed: " + e.getMessage() + " [statement: " + sql + "]",
                PostgresFailures.onConnection(c, e), null);
    }
}
