package dev.engram.memory.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.engram.memory.MemoryException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
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

    private PostgresLocks(HikariDataSource pool) {
        this.pool = pool;
    }

    /**
     * Connects a pool of at most {@code maxHeld} connections for locks.
     *
     * @throws IllegalArgumentException if the URL is not PostgreSQL's or {@code maxHeld} is not 1 to 1,000
     * @throws MemoryException          if the database cannot be reached
     */
    public static PostgresLocks open(String jdbcUrl, String user, String password, int maxHeld) {
        Objects.requireNonNull(jdbcUrl, "jdbc url must not be null");
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
        config.setConnectionTimeout(Long.MAX_VALUE >> 20); // wait for a free connection as long as a turn waits
        try {
            return new PostgresLocks(new HikariDataSource(config));
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
     * @throws InterruptedException if the thread is interrupted while waiting (nothing is held then)
     * @throws MemoryException      if the database fails
     */
    public Held acquire(String name) throws InterruptedException {
        long key = key(name);
        Connection c;
        try {
            c = pool.getConnection();
        } catch (SQLException e) {
            throw new MemoryException("Cannot take a connection for lock '" + name + "': " + e.getMessage(), e);
        }
        try (PreparedStatement s = c.prepareStatement("SELECT pg_advisory_lock(?)")) {
            s.setLong(1, key);
            s.execute();
        } catch (SQLException e) {
            close(c);
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while waiting for lock '" + name + "'");
            }
            throw new MemoryException("Cannot take lock '" + name + "': " + e.getMessage(), e);
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
