package dev.engram.memory.postgres;

import dev.engram.memory.MemoryException;
import dev.engram.memory.StorageFullException;
import dev.engram.memory.StorageUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;
import java.util.Set;
import org.jdbi.v3.core.ConnectionException;

/**
 * Which failures of PostgreSQL mean "the database cannot be reached" or "its disk is full", by SQLSTATE, and
 * their messages: an operator's sentence, with the database named without its URL parameters (which may
 * hold a password).
 */
final class PostgresFailures {
    /** admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections. */
    private static final Set<String> UNAVAILABLE = Set.of("57P01", "57P02", "57P03", "53300");
    private static final String DISK_FULL = "53100";
    private static final String DEADLOCK = "40P01";

    private PostgresFailures() {
    }

    /**
     * {@code e} as a {@link StorageUnavailableException} or {@link StorageFullException} when it is one of
     * those failures, as a {@link MemoryException} saying to run it again when PostgreSQL rolled it back to break a
     * deadlock between two units of work (see {@link WriteLocks}), else {@code e} itself.
     */
    static RuntimeException translate(RuntimeException e, String jdbcUrl) {
        return e instanceof MemoryException ? e : classify(e, database(jdbcUrl)).<RuntimeException>map(m -> m).orElse(e);
    }

    /** The store's exception for a failure of {@code database} that means it is unreachable or its disk is full. */
    static Optional<MemoryException> classify(Throwable e, String database) {
        Optional<SQLException> sql = sqlCause(e);
        String state = sql.map(SQLException::getSQLState).map(s -> s == null ? "" : s).orElse("");
        if (DISK_FULL.equals(state)) {
            return Optional.of(new StorageFullException("The disk of the PostgreSQL database " + database + " is full "
                    + "(SQLSTATE " + DISK_FULL + "); the write was refused and nothing of it was written. Everything "
                    + "stored before is intact; free space on the database server and retry.", e));
        }
        if (DEADLOCK.equals(state)) {
            return Optional.of(new MemoryException("PostgreSQL found this operation and another on the database " + database
                    + " each waiting for a lock the other held (two units of work that each touched the rows of two "
                    + "users, in opposite order) and rolled this one back to end the wait (SQLSTATE 40P01): nothing of it "
                    + "was kept. Run it again.", e));
        }
        if (state.startsWith("08") || UNAVAILABLE.contains(state) || e instanceof ConnectionException
                || sql.filter(SQLTransientConnectionException.class::isInstance).isPresent()) {
            return Optional.of(unavailable(database, e));
        }
        return Optional.empty();
    }

    /**
     * {@code e}, a failure of a statement on {@code c}, as a lost connection when {@code c} is closed by then and
     * {@code e} carries no SQLSTATE: the pool closes a connection on which the driver reported a broken link or a
     * shutdown (SQLSTATE 08xxx, 57P01), and every later call on it fails with the pool's own "Connection is closed",
     * which names no state. That is the link lost under an earlier statement, SQLSTATE 08003 (connection does not
     * exist), not a failure of the statement; {@link #classify} then calls it what it is.
     */
    static SQLException onConnection(Connection c, SQLException e) {
        return e.getSQLState() == null && closed(c)
                ? new SQLNonTransientConnectionException(e.getMessage() + " (the connection to PostgreSQL was lost)", "08003", e)
                : e;
    }

    /** {@link #onConnection(Connection, SQLException)} for a failure of any kind that has no classified cause. */
    static RuntimeException onConnection(Connection c, RuntimeException e) {
        if (classify(e, "").isPresent() || !closed(c)) {
            return e;
        }
        SQLException lost = new SQLNonTransientConnectionException("the connection to PostgreSQL was lost: " + e.getMessage(), "08003", e);
        return new ConnectionException(lost);
    }

    private static boolean closed(Connection c) {
        try {
            return c == null || c.isClosed();
        } catch (SQLException | RuntimeException e) {
            return true;
        }
    }

    static StorageUnavailableException unavailable(String database, Throwable cause) {
        return new StorageUnavailableException("The PostgreSQL database " + database + " cannot be reached (it may be "
                + "restarting or down); the operation failed. Engram reconnects by itself once the "
                + "database answers again; retry then.", cause);
    }

    /** The database a JDBC URL names, without its parameters. */
    static String database(String jdbcUrl) {
        int q = jdbcUrl.indexOf('?');
        return (q < 0 ? jdbcUrl : jdbcUrl.substring(0, q)).replaceFirst("^jdbc:postgresql:(//)?", "");
    }

    private static Optional<SQLException> sqlCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException s) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
