package dev.engram.memory.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.SchemaVersionException;
import dev.engram.memory.StorageUnavailableException;
import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.spi.Rows;
import dev.engram.memory.spi.SchemaMigrations;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The memory store's backend on PostgreSQL (Jdbi over a HikariCP pool), for more than one process or
 * machine on one database. It implements only {@link MemoryBackend} (a transaction primitive) and
 * {@link Rows} (plain row operations); {@link MemoryStore#over(MemoryBackend)} adds every rule, and the
 * result passes the same conformance suite as the embedded SQLite store.
 *
 * <p>Every write runs in a transaction that takes transaction-scoped advisory locks as it touches rows ({@link
 * WriteLocks}): its user's, or the whole database's, so that writes of one user are serialised across every process
 * and writes of different users run at once; the change log's entries are inserted at commit under a short lock, so
 * their sequence numbers commit in order (a search index following the log never skips an event). Writes of this process that arrive while one runs
 * join its transaction and commit with it ({@link GroupCommit}: one WAL flush for all of them, each still
 * rolled back alone if it fails, none returning before the commit is durable). Reads run concurrently. The schema is created
 * and migrated with Flyway at open (history in {@value SchemaMigrations#HISTORY_TABLE}), in the
 * connection's current schema; a database written by a newer Engram is refused unchanged.
 *
 * <pre>{@code
 * try (MemoryStore store = MemoryStore.over(PostgresBackend.open("jdbc:postgresql://db/engram", "engram", secret))) {
 *     ...
 * }
 * }</pre>
 */
public final class PostgresBackend implements MemoryBackend {
    static final String MIGRATIONS = "classpath:dev/engram/memory/postgres/migration";
    /** The highest migration under {@link #MIGRATIONS}. */
    static final int SCHEMA_VERSION = 26;
    /** Connections in the pool by default. */
    public static final int DEFAULT_POOL_SIZE = 8;
    /** How long an operation waits for a connection by default (see {@link #open(String, String, String, int, Duration)}). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /** How often an idle connection is checked, so that one the database dropped is replaced before it is used. */
    static final Duration KEEPALIVE = Duration.ofSeconds(30);
    private final HikariDataSource dataSource;
    private final Jdbi jdbi;
    private final String jdbcUrl;
    private final GroupCommit writes;

    private PostgresBackend(HikariDataSource dataSource) {
        this.dataSource = dataSource;
        this.jdbcUrl = dataSource.getJdbcUrl();
        this.jdbi = Jdbi.create(dataSource);
        this.writes = new GroupCommit(jdbi, GroupCommit.MAX_WRITES, e -> PostgresFailures.translate(e, jdbcUrl));
        SchemaMigrations.migrate(dataSource, MIGRATIONS, PostgresBackend.class.getClassLoader(), dataSource.getJdbcUrl(),
                SCHEMA_VERSION);
    }

    /**
     * Connects to PostgreSQL with a pool of {@value #DEFAULT_POOL_SIZE} connections and creates or migrates the schema.
     *
     * @throws MemoryException        if the database cannot be reached or prepared
     * @throws SchemaVersionException if the database was written by a newer Engram (it is not changed)
     */
    public static PostgresBackend open(String jdbcUrl, String user, String password) {
        return open(jdbcUrl, user, password, DEFAULT_POOL_SIZE);
    }

    /** {@link #open(String, String, String)} with {@code poolSize} connections (1 to 1,000). */
    public static PostgresBackend open(String jdbcUrl, String user, String password, int poolSize) {
        return open(jdbcUrl, user, password, poolSize, DEFAULT_TIMEOUT);
    }

    /**
     * {@link #open(String, String, String, int)} where every operation waits at most {@code timeout} (0.25 s to
     * 5 min) for a connection. While the database is down or restarting, operations fail within that time with a
     * {@link StorageUnavailableException} instead of waiting; the pool reconnects by itself when it is back. Idle
     * connections are pinged every 30 s and checked before use, and a query that gets no answer
     * for {@code max(30 s, 6 × timeout)} (the database vanished without closing the connection) fails too.
     * Parameters of the JDBC URL ({@code connectTimeout}, {@code socketTimeout}, ...) take precedence.
     */
    public static PostgresBackend open(String jdbcUrl, String user, String password, int poolSize, Duration timeout) {
        Objects.requireNonNull(jdbcUrl, "jdbc url must not be null");
        Objects.requireNonNull(timeout, "timeout must not be null");
        if (timeout.compareTo(Duration.ofMillis(250)) < 0 || timeout.compareTo(Duration.ofMinutes(5)) > 0) {
            throw new IllegalArgumentException("the PostgreSQL timeout must be between 0.25 s and 5 min, got " + timeout);
        }
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("not a PostgreSQL JDBC URL (jdbc:postgresql://host[:port]/database): " + jdbcUrl);
        }
        if (poolSize < 1 || poolSize > 1_000) {
            throw new IllegalArgumentException("pool size must be between 1 and 1000, got " + poolSize);
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(poolSize);
        config.setPoolName("engram-postgres");
        pooling(config, timeout);
        config.addDataSourceProperty("socketTimeout", Math.max(30, 6 * seconds(timeout)));
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new MemoryException("Cannot connect to PostgreSQL at " + jdbcUrl + ": " + e.getMessage(), e);
        }
        try {
            return new PostgresBackend(ds);
        } catch (MemoryException e) {
            ds.close();
            throw e;
        } catch (RuntimeException e) {
            ds.close();
            throw new MemoryException("Cannot prepare the Engram schema at " + jdbcUrl + ": " + e.getMessage(), e);
        }
    }

    /**
     * The settings both pools share: wait at most {@code timeout} for a connection or a connect, validate a
     * connection (within half of that) before handing it out after it idled, and ping idle ones every
     * {@link #KEEPALIVE} so that connections the database dropped are replaced rather than used.
     */
    static void pooling(HikariConfig config, Duration timeout) {
        config.setConnectionTimeout(timeout.toMillis());
        config.setValidationTimeout(Math.max(250, timeout.toMillis() / 2));
        config.setKeepaliveTime(KEEPALIVE.toMillis());
        config.addDataSourceProperty("connectTimeout", seconds(timeout));
        config.addDataSourceProperty("tcpKeepAlive", true);
    }

    private static long seconds(Duration d) {
        return Math.max(1, (d.toMillis() + 999) / 1000);
    }

    @Override
    public <T> T write(Function<Rows, T> work) {
        try {
            return writes.write(work);
        } catch (RuntimeException e) {
            throw PostgresFailures.translate(e, jdbcUrl);
        }
    }

    /** A unit of work never joins a transaction other writes are in, since they would wait for its caller's code. */
    @Override
    public <T> T writeUnit(Function<Rows, T> work) {
        try {
            return writes.writeAlone(work);
        } catch (RuntimeException e) {
            throw PostgresFailures.translate(e, jdbcUrl);
        }
    }

    /**
     * PostgreSQL undoes part of a unit of work to a {@code SAVEPOINT} ({@link WriteLocks}, which runs every write), so a step whose
     * calls run inline is one transaction ({@link MemoryStore#attempt}): one commit where there were several.
     */
    @Override
    public boolean savepoints() {
        return true;
    }

    /** Writes of this process waiting for their turn now (for tests). */
    int queuedWrites() {
        return writes.queued();
    }

    /** Writes of this process run again because a lock they needed was held elsewhere (for tests). */
    long retriedWrites() {
        return writes.retried();
    }

    /**
     * Runs {@code work} on a connection of its own, in autocommit, so that it sees committed data only: never
     * {@code withHandle}, which on the thread of a write in progress would join that write's handle and show
     * its uncommitted rows (and change-log events).
     */
    @Override
    public <T> T read(Function<Rows, T> work) {
        try (Handle h = jdbi.open()) {
            return work.apply(new PostgresRows(h));
        } catch (RuntimeException e) {
            throw PostgresFailures.translate(e, jdbcUrl);
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
