package dev.engram.memory;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.output.MigrateResult;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The embedded store: one SQLite file (WAL) holds every user and agent.
 *
 * <p>Writes go through a single writer connection, one at a time under a lock, each in one
 * {@code BEGIN IMMEDIATE} transaction that also appends to the change log. Reads use a small pool
 * of other connections and so run while a write is in progress (WAL readers see the last commit).
 */
final class SqliteMemoryStore implements MemoryStore {
    private static final Logger LOG = LoggerFactory.getLogger(SqliteMemoryStore.class);
    static final String MIGRATIONS = "classpath:dev/engram/memory/migration";
    static final String HISTORY_TABLE = "engram_schema_history";

    private final SqliteOptions options;
    private final Connection writerConnection;
    private final Jdbi writer;
    private final HikariDataSource readerPool;
    private final Jdbi reader;
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Write transactions ended through this store, counted after each ends (committed or not). */
    private final java.util.concurrent.atomic.AtomicLong endedWrites = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;

    private final SqliteBlocks blocks;
    private final SqliteArchival archival;
    private final SqliteNotes notes;
    private final SqliteAgents agents;
    private final SqliteMessages messages;
    private final SqliteChanges changes;

    private SqliteMemoryStore(SqliteOptions options, Connection writerConnection, HikariDataSource readerPool) {
        this.options = options;
        this.writerConnection = writerConnection;
        this.writer = Jdbi.create(writerConnection);
        this.readerPool = readerPool;
        this.reader = Jdbi.create(readerPool);
        this.blocks = new SqliteBlocks(this);
        this.archival = new SqliteArchival(this);
        this.notes = new SqliteNotes(this);
        this.agents = new SqliteAgents(this);
        this.messages = new SqliteMessages(this);
        this.changes = new SqliteChanges(this);
    }

    static SqliteMemoryStore open(SqliteOptions options) {
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
            return new SqliteMemoryStore(options, writerConnection, pool);
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

    /**
     * Applies the schema migrations, first refusing a database written by a newer schema: Flyway
     * itself would accept one silently.
     */
    private static void migrate(Path file, SqliteOptions options) {
        Flyway flyway = Flyway.configure(SqliteMemoryStore.class.getClassLoader())
                .dataSource(dataSource(file, options, SQLiteConfig.TransactionMode.IMMEDIATE))
                .locations(MIGRATIONS)
                .table(HISTORY_TABLE)
                .load();
        try {
            MigrationInfo[] all = flyway.info().all();
            MigrationVersion known = Arrays.stream(all).filter(i -> i.getState().isResolved())
                    .map(MigrationInfo::getVersion).max(MigrationVersion::compareTo).orElse(MigrationVersion.EMPTY);
            Optional<MigrationInfo> future = Arrays.stream(all).filter(i -> !i.getState().isResolved() && i.getState().isApplied())
                    .max((a, b) -> a.getVersion().compareTo(b.getVersion()));
            if (future.isPresent()) {
                throw new SchemaVersionException("Memory database " + file + " was written by a newer Engram (schema version "
                        + future.get().getVersion() + "); this version understands up to schema version " + known
                        + ". Upgrade Engram to open it. The database was not changed.");
            }
            MigrateResult result = flyway.migrate();
            if (result.migrationsExecuted > 0) {
                LOG.info("Migrated memory database {} to schema version {}", file, result.targetSchemaVersion);
            }
        } catch (SchemaVersionException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new MemoryException("Cannot prepare memory database " + file + ": " + e.getMessage(), e);
        }
    }

    /** Runs {@code work} in one write transaction; serialised with every other write of this store. */
    <T> T write(Function<Handle, T> work) {
        writeLock.lock();
        try {
            checkOpen();
            return writer.inTransaction(work::apply);
        } finally {
            endedWrites.incrementAndGet();
            writeLock.unlock();
        }
    }

    /** How many write transactions have ended (committed or rolled back) through this store. */
    long endedWrites() {
        return endedWrites.get();
    }

    /** Runs {@code work} on a reader connection, outside any write transaction. */
    <T> T read(Function<Handle, T> work) {
        checkOpen();
        return reader.withHandle(work::apply);
    }

    Instant now() {
        return SqlTimes.truncate(options.clock().instant());
    }

    private void checkOpen() {
        if (closed) {
            throw MemoryErrors.closed();
        }
    }

    static final String INSERT_CHANGE = "INSERT INTO changes (entity, entity_id, op, user_id, agent_id) VALUES (?, ?, ?, ?, ?)";

    /** Appends one event to the change log, inside the caller's transaction. */
    static void recordChange(Handle h, ChangeEvent.Entity entity, String id, ChangeEvent.Op op, String userId,
            String agentIdOrNull) {
        h.createUpdate(INSERT_CHANGE)
                .bind(0, entity.name()).bind(1, id).bind(2, op.name()).bind(3, userId).bind(4, agentIdOrNull)
                .execute();
    }

    @Override
    public BlockStore blocks() {
        return blocks;
    }

    @Override
    public ArchivalStore archival() {
        return archival;
    }

    @Override
    public NoteStore notes() {
        return notes;
    }

    @Override
    public AgentStore agents() {
        return agents;
    }

    @Override
    public MessageStore messages() {
        return messages;
    }

    @Override
    public ChangeLog changes() {
        return changes;
    }

    @Override
    public MemoryStats stats(Scope scope) {
        Checks.notNull(scope, "scope");
        return read(h -> {
            long blockCount = h.createQuery("""
                    SELECT (SELECT count(*) FROM blocks WHERE user_id = :u AND agent_id = :a)
                         + (SELECT count(*) FROM block_shares WHERE user_id = :u AND agent_id = :a)""")
                    .bind("u", scope.userId()).bind("a", scope.agentId()).mapTo(Long.class).one();
            long archivalCount = h.createQuery("SELECT count(*) FROM archival WHERE user_id = ? AND agent_id = ?")
                    .bind(0, scope.userId()).bind(1, scope.agentId()).mapTo(Long.class).one();
            long noteCount = h.createQuery("SELECT count(*) FROM notes WHERE user_id = ?")
                    .bind(0, scope.userId()).mapTo(Long.class).one();
            return h.createQuery("""
                    SELECT coalesce((SELECT total FROM message_counts WHERE user_id = :u AND agent_id = :a), 0) AS total,
                           coalesce((SELECT in_context FROM message_counts WHERE user_id = :u AND agent_id = :a), 0) AS in_context,
                           (SELECT max(created_at) FROM messages WHERE user_id = :u AND agent_id = :a) AS last_at""")
                    .bind("u", scope.userId()).bind("a", scope.agentId())
                    .map((rs, ctx) -> {
                        long last = rs.getLong("last_at");
                        Optional<Instant> lastAt = rs.wasNull() ? Optional.empty() : Optional.of(SqlTimes.fromMicros(last));
                        return new MemoryStats(blockCount, archivalCount, noteCount, rs.getLong("total"),
                                rs.getLong("in_context"), lastAt);
                    }).one();
        });
    }

    /** Runs an integrity check; "ok" when the file is sound. */
    String integrityCheck() {
        return read(h -> h.createQuery("PRAGMA integrity_check").mapTo(String.class).one());
    }

    @Override
    public void close() {
        writeLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
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
        return "SqliteMemoryStore[" + options.file() + "]";
    }
}
