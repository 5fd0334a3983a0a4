package dev.engram.memory.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.engram.memory.MemoryException;
import dev.engram.memory.StorageUnavailableException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.Objects;

/**
 * Named locks held across every process on one PostgreSQL database: session-level advisory locks, each held on
 * a connection of its own for as long as it is held. Several Engram servers on one database use one per agent so
 * that an agent runs one turn at a time wherever its messages arrive. A process that dies releases its locks
 * with its connections. Waiting is fair enough for turns: PostgreSQL grants a released advisory lock to the
 * waiters in the order they asked.
 *
 * <p>Each held (or awaited) lock takes a connection of this object's own pool, so {@code maxHeld} bounds how
 * many agents run a turn at once on this process; a turn beyond it waits for a connection.
 */
public final class PostgresLocks implements AutoCloseable {
    private final HikariDataSource pool;
    private final String database;

    private PostgresLocks(HikariDataSource pool, String jdbcUrl) {
        this.pool = pool;
        this.database = PostgresFailures.database(jdbcUrl);
    }

    /**
     * Connects a pool of at most {@code maxHeld} connections for locks.
     *
     * @throws IllegalArgumentException if the URL is not PostgreSQL's or {@code maxHeld} is not 1 to 1,000
     * @throws MemoryException          if the database cannot be reached
     */
    public static PostgresLocks open(String jdbcUrl, String user, String password, int maxHeld) {
        return open(jdbcUrl, user, password, maxHeld, PostgresBackend.DEFAULT_TIMEOUT);
    }

    /**
     * {@link #open(String, String, String, int)} that gives up on the database after {@code timeout} (0.25 s
     * to 5 min): while it cannot be reached, {@link #acquire} fails within that time with a
     * {@link StorageUnavailableException} rather than waiting; waiting for a lock another turn holds, or for a
     * connection while {@code maxHeld} locks are held, is not bounded.
     */
    public static PostgresLocks open(String jdbcUrl, String user, String password, int maxHeld, Duration timeout) {
        Objects.requireNonNull(jdbcUrl, "jdbc url must not be null");
        Objects.requireNonNull(timeout, "timeout must not be null");
        if (timeout.compareTo(Duration.ofMillis(250)) < 0 || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
            throw new IllegalArgumentException("the PostgreSQL timeout must be between 0.25 s and 5 min, got " + timeout);
        }
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("not a PostgreSQL JDBC URL (jdbc:postgresql://host[:port]/database): " + jdbcUrl);
        }
        if (maxHeld < 1 || maxHeld > 1_000) {
            throw new IllegalArgumentException("the most locks held at once must be between 1 and 1000, got " + maxHeld);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(maxHeld);
        config.setMinimumIdle(Math.min(4, maxHeld));
        config.setPoolName("engram-postgres-locks");
        // No socket timeout: a lock is awaited, and held, for as long as a turn runs.
        PostgresBackend.pooling(config, timeout);
        try {
            return new PostgresLocks(new HikariDataSource(config), jdbcUrl);
        } catch (RuntimeException e) {
            throw new MemoryException("Cannot connect to PostgreSQL at " + jdbcUrl + ": " + e.getMessage(), e);
        }
    }

    /** A held lock; closing it releases it (and its connection). */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Waits until no process holds the lock named {@code name}, then holds it.
     *
     * @throws InterruptedException        if the thread is interrupted while waiting (nothing is held then)
     * @throws StorageUnavailableException if the database cannot be reached, or the connection broke while waiting
     * @throws MemoryException             if the database fails otherwise
     */
    public Held acquire(String name) throws InterruptedException {
        long key = key(name);
        Connection c = connection(name);
        try (PreparedStatement s = c.prepareStatement("SELECT pg_advisory_lock(?)")) {
            s.setLong(1, key);
            s.execute();
        } catch (SQLException e) {
            close(c);
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for lock '" + name + "'");
            }
            throw failure("Cannot take lock '" + name + "': " + e.getMessage(), e);
        }
        return () -> {
            try (PreparedStatement s = c.prepareStatement("SELECT pg_advisory_unlock(?)")) {
                s.setLong(1, key);
                s.execute();
            } catch (SQLException e) {
                // The connection is closed below, which releases the lock anyway.
            } finally {
                close(c);
            }
        };
    }

    /**
     * A connection of the pool: waits while every connection holds a lock (turns end), but fails once a timeout
     * passes in which no connection could be made (the database is unreachable).
     */
    private Connection connection(String name) throws InterruptedException {
        while (true) {
            try {
                return pool.getConnection();
            } catch (SQLTransientConnectionException e) {
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while waiting for a connection for lock '" + name + "'");
                }
                if (e.getCause() != null) { // the pool could not connect: its last attempt's failure
                    throw PostgresFailures.unavailable(database, e);
                }
                // every connection holds a lock: wait on
            } catch (SQLException e) {
                throw failure("Cannot take a connection for lock '" + name + "': " + e.getMessage(), e);
            }
        }
    }

    private MemoryException failure(String message, SQLException e) {
        return PostgresFailures.classify(e, database).orElseGet(() -> new MemoryException(message, e));
    }

    /** A 64-bit advisory key for a name: the first 8 bytes of its SHA-256. */
    static long key(String name) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            long k = 0;
            for (int i = 0; i < 8; i++) {
                k = (k << 8) | (d[i] & 0xff);
            }
            return k;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    private static void close(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // returning a connection that failed: the pool discards it
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
