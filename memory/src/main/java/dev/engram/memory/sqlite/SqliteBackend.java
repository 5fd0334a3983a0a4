package dev.engram.memory.sqlite;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.engram.memory.MemoryException;
import dev.engram.memory.SchemaVersionException;
import dev.engram.memory.SqliteOptions;
import dev.engram.memory.spi.MemoryBackend;
import dev.engram.memory.spi.Rows;
import dev.engram.memory.spi.SchemaMigrations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The embedded backend: one SQLite file (WAL) holds every user and agent. Open it through
 * {@link dev.engram.memory.MemoryStore#sqlite(SqliteOptions)}, or with {@link #open} to keep a handle
 * on the backend itself.
 *
 * <p>Writes go through a single writer connection, one at a time under a lock, each in one
 * {@code BEGIN IMMEDIATE} transaction. Reads use a small pool of other connections and so run while a
 * write is in progress (WAL readers see the last commit). The schema is migrated with Flyway at open;
 * a file written by a newer schema is refused unchanged. A write refused because the disk is full throws
 * {@link dev.engram.memory.StorageFullException}; it was rolled back, and the next write after space
 * returns succeeds on the same open backend.
 */
public final class SqliteBackend implements MemoryBackend {
    private static final Logger LOG = LoggerFactory.getLogger(SqliteBackend.class);
    static final String MIGRATIONS = "classpath:dev/engram/memory/migration";
    /** The highest migration under {@link #MIGRATIONS}. */
    static final int SCHEMA_VERSION = 27;
    static final String HISTORY_TABLE = SchemaMigrations.HISTORY_TABLE;

    private final SqliteOptions options;
    private final Connection writerConnection;
    private final Jdbi writer;
    private final HikariDataSource readerPool;
    private final Jdbi reader;
    private final ReentrantLock writeLock = new ReentrantLock();
    /** The prepared statements kept per connection, writer's and readers'. */
    private final SqliteStatements statements = new SqliteStatements();
    private volatile boolean closed;

    private SqliteBackend(SqliteOptions options, Connection writerConnection, HikariDataSource readerPool) {
        this.options = options;
        this.writerConnection = writerConnection;
        this.writer = Jdbi.create(writerConnection);
        this.readerPool = readerPool;
        this.reader = Jdbi.create(readerPool);
        writer.setStatementBuilderFactory(statements);
        reader.setStatementBuilderFactory(statements);
    }

    /**
     * Opens (creating if missing) and migrates the database file.
     *
     * @throws SchemaVersionException if a newer Engram wrote the file
     * @throws MemoryException        if the file cannot be created, opened or migrated
     */
    public static SqliteBackend open(SqliteOptions options) {
        Path file = options.file().toAbsolutePath();
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
        } catch (IOException e) {
            throw new MemoryException("Cannot create the directory of memory database " + file + ": " + e.getMessage(), e);
        }
        migrate(file, options);
        Connection writerConnection = null;
        HikariDataSource pool = null;
        try {
            writerConnection = dataSource(file, options, SQLiteConfig.TransactionMode.IMMEDIATE).getConnection();
            HikariConfig hikari = new HikariConfig();
            hikari.setDataSource(dataSource(file, options, SQLiteConfig.TransactionMode.DEFERRED));
            hikari.setMaximumPoolSize(options.readers());
            hikari.setMinimumIdle(1);
            hikari.setPoolName("engram-memory-readers");
            hikari.setConnectionTimeout(Math.max(250, options.busyTimeout().toMillis()));
            hikari.setAutoCommit(true);
            pool = new HikariDataSource(hikari);
            return new SqliteBackend(options, writerConnection, pool);
        } catch (SQLException | RuntimeException e) {
            closeQuietly(writerConnection);
            if (pool != null) {
                pool.close();
            }
            throw new MemoryException("Cannot open memory database " + file + ": " + e.getMessage(), e);
        }
    }

    private static SQLiteDataSource dataSource(Path file, SqliteOptions options, SQLiteConfig.TransactionMode mode) {
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(options.durability() == SqliteOptions.Durability.POWER_LOSS
                ? SQLiteConfig.SynchronousMode.FULL : SQLiteConfig.SynchronousMode.NORMAL);
        config.setBusyTimeout((int) Math.min(Integer.MAX_VALUE, options.busyTimeout().toMillis()));
        config.enforceForeignKeys(true);
        config.setTransactionMode(mode);
        config.setTempStore(SQLiteConfig.TempStore.MEMORY);
        SQLiteDataSource ds = new SQLiteDataSource(config);
        ds.setUrl("jdbc:sqlite:" + file);
        return ds;
    }

    /** Applies the schema migrations, refusing a database written by a newer schema (see {@link SchemaMigrations}). */
    private static void migrate(Path file, SqliteOptions options) {
        SchemaMigrations.migrate(dataSource(file, options, SQLiteConfig.TransactionMode.IMMEDIATE), MIGRATIONS,
                SqliteBackend.class.getClassLoader(), file.toString(), SCHEMA_VERSION);
    }

    @Override
    public <T> T write(Function<Rows, T> work) {
        writeLock.lock();
        try {
            checkOpen();
            return writer.inTransaction(h -> work.apply(new SqliteRows(h)));
        } catch (RuntimeException e) {
            throw SqliteFailures.translate(e, options.file().toAbsolutePath());
        } finally {
            writeLock.unlock();
        }
    }

    /** SQLite undoes part of a transaction to a {@code SAVEPOINT} ({@link SqliteRows#savepoint}). */
    @Override
    public boolean savepoints() {
        return true;
    }

    @Override
    public <T> T read(Function<Rows, T> work) {
        checkOpen();
        try {
            return reader.withHandle(h -> work.apply(new SqliteRows(h)));
        } catch (RuntimeException e) {
            throw SqliteFailures.translate(e, options.file().toAbsolutePath());
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new MemoryException("The memory store is closed.");
        }
    }

    /** Runs an integrity check; "ok" when the file is sound. */
    String integrityCheck() {
        return read(rows -> ((SqliteRows) rows).integrityCheck());
    }

    /** The statements kept per connection (for tests). */
    SqliteStatements statements() {
        return statements;
    }

    /** Runs {@code work} on a reader connection (for tests that look at the file itself). */
    <T> T withHandle(Function<org.jdbi.v3.core.Handle, T> work) {
        checkOpen();
        return reader.withHandle(work::apply);
    }

    @Override
    public void close() {
        writeLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            statements.closeAll();
            closeQuietly(writerConnection);
            readerPool.close();
        } finally {
            writeLock.unlock();
        }
    }

    private static void closeQuietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (SQLException e) {
            LOG.warn("Closing the memory database connection failed", e);
        }
    }

    @Override
    public String toString() {
        return "SqliteBackend[" + options.file() + "]";
    }
}
