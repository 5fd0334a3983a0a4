package dev.engram.samples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.engram.memory.AgentRecord;
import dev.engram.memory.AgentStore;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.ArchivalStore;
import dev.engram.memory.Block;
import dev.engram.memory.BlockStore;
import dev.engram.memory.BlockType;
import dev.engram.memory.BlockVersion;
import dev.engram.memory.ChangeEvent;
import dev.engram.memory.ChangeLog;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.DuplicateException;
import dev.engram.memory.LimitExceededException;
import dev.engram.memory.MemoryException;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemoryStats;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageRole;
import dev.engram.memory.MessageStore;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NewBlock;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Note;
import dev.engram.memory.NoteStore;
import dev.engram.memory.NotFoundException;
import dev.engram.memory.Scope;
import dev.engram.memory.VersionConflictException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.Query;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;

/**
 * A complete {@link MemoryStore} on PostgreSQL with Jdbi: how to bring your own backend. It passes the
 * same conformance suite as the embedded SQLite store.
 *
 * <p>Design, in brief: one table per kind of memory (the SQLite schema, in PostgreSQL types);
 * timestamps as microseconds since the epoch, as {@code Instant}s are truncated to; every write in one
 * transaction that first takes a transaction-scoped advisory lock, so writes are serialised and the
 * change log's sequence numbers commit in order (an index following {@link #changes()} never skips
 * an event); reads run concurrently. The schema is created at open if missing.
 *
 * <pre>{@code
 * try (MemoryStore store = PostgresMemoryStore.open("jdbc:postgresql://localhost/engram", "engram", "secret")) {
 *     AgentRuntime runtime = AgentRuntime.builder(store, MemorySearch.lucene(store, embedder, indexDir)).build();
 * }
 * }</pre>
 */
public final class PostgresMemoryStore implements MemoryStore {
    private static final long WRITE_LOCK = 0x656e6772616dL; // "engram"
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String SCHEMA = """
            CREATE TABLE IF NOT EXISTS blocks (
                id BIGSERIAL PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, label TEXT NOT NULL,
                description TEXT NOT NULL, value TEXT NOT NULL, char_limit INTEGER NOT NULL CHECK (char_limit > 0),
                type TEXT NOT NULL, permission TEXT NOT NULL, pinned BOOLEAN NOT NULL, version BIGINT NOT NULL,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, UNIQUE (user_id, agent_id, label));
            CREATE TABLE IF NOT EXISTS block_versions (
                block_id BIGINT NOT NULL REFERENCES blocks (id) ON DELETE CASCADE, version BIGINT NOT NULL,
                value TEXT NOT NULL, operation TEXT NOT NULL, committed_at BIGINT NOT NULL, PRIMARY KEY (block_id, version));
            CREATE TABLE IF NOT EXISTS block_shares (
                block_id BIGINT NOT NULL REFERENCES blocks (id) ON DELETE CASCADE, user_id TEXT NOT NULL,
                agent_id TEXT NOT NULL, permission TEXT NOT NULL, created_at BIGINT NOT NULL, PRIMARY KEY (block_id, agent_id));
            CREATE TABLE IF NOT EXISTS archival (
                pos BIGSERIAL UNIQUE, id TEXT PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, label TEXT,
                content TEXT NOT NULL, tags TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
            CREATE UNIQUE INDEX IF NOT EXISTS archival_label ON archival (user_id, agent_id, label) WHERE label IS NOT NULL;
            CREATE TABLE IF NOT EXISTS notes (
                pos BIGSERIAL UNIQUE, id TEXT PRIMARY KEY, user_id TEXT NOT NULL, content TEXT NOT NULL,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
            CREATE TABLE IF NOT EXISTS messages (
                id BIGSERIAL PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, session_id TEXT NOT NULL,
                role TEXT NOT NULL, content TEXT NOT NULL, tool_calls TEXT, tool_call_id TEXT,
                created_at BIGINT NOT NULL, in_context BOOLEAN NOT NULL);
            CREATE INDEX IF NOT EXISTS messages_scope ON messages (user_id, agent_id, id);
            CREATE TABLE IF NOT EXISTS changes (
                seq BIGSERIAL PRIMARY KEY, entity TEXT NOT NULL, entity_id TEXT NOT NULL, op TEXT NOT NULL,
                user_id TEXT NOT NULL, agent_id TEXT);
            CREATE TABLE IF NOT EXISTS agents (
                user_id TEXT NOT NULL, agent_id TEXT NOT NULL, name TEXT NOT NULL, definition TEXT NOT NULL,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (user_id, agent_id), UNIQUE (user_id, name));
            """;

    private final HikariDataSource dataSource;
    private final Jdbi jdbi;
    private final Clock clock;
    private volatile boolean closed;

    private final BlockStore blocks = new Blocks();
    private final ArchivalStore archival = new Archival();
    private final NoteStore notes = new Notes();
    private final MessageStore messages = new Messages();
    private final AgentStore agents = new Agents();
    private final ChangeLog changes = new Changes();

    private PostgresMemoryStore(HikariDataSource dataSource, Clock clock) {
        this.dataSource = dataSource;
        this.jdbi = Jdbi.create(dataSource);
        this.clock = clock;
        jdbi.useHandle(h -> h.createScript(SCHEMA).execute());
    }

    /**
     * Connects to PostgreSQL and creates the schema if it is missing.
     *
     * @throws MemoryException if the database cannot be reached or prepared
     */
    public static PostgresMemoryStore open(String jdbcUrl, String user, String password) {
        Objects.requireNonNull(jdbcUrl, "jdbc url must not be null");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(8);
        config.setPoolName("engram-postgres");
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new MemoryException("Cannot connect to PostgreSQL at " + jdbcUrl + ": " + e.getMessage(), e);
        }
        try {
            return new PostgresMemoryStore(ds, Clock.systemUTC());
        } catch (RuntimeException e) {
            ds.close();
            throw new MemoryException("Cannot prepare the Engram schema at " + jdbcUrl + ": " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Plumbing

    private <T> T write(Function<Handle, T> work) {
        checkOpen();
        return jdbi.inTransaction(h -> {
            h.execute("SELECT pg_advisory_xact_lock(?)", WRITE_LOCK);
            return work.apply(h);
        });
    }

    private <T> T read(Function<Handle, T> work) {
        checkOpen();
        return jdbi.withHandle(work::apply);
    }

    private void checkOpen() {
        if (closed) {
            throw new MemoryException("The memory store is closed.");
        }
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private static long micros(Instant t) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, t);
    }

    private static Instant instant(long micros) {
        return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
    }

    private static void change(Handle h, ChangeEvent.Entity entity, String id, ChangeEvent.Op op, String userId,
            String agentIdOrNull) {
        h.createUpdate("INSERT INTO changes (entity, entity_id, op, user_id, agent_id) VALUES (?, ?, ?, ?, ?)")
                .bind(0, entity.name()).bind(1, id).bind(2, op.name()).bind(3, userId).bind(4, agentIdOrNull).execute();
    }

    private static String newId(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    private static void requireText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be null or blank");
        }
    }

    private static void requirePaging(int offset, int limit) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative, got " + offset);
        }
        if (limit <= 0) {
            throw new IllegalArgumentException("limit must be positive, got " + limit);
        }
    }

    private static <T> T notNull(T value, String what) {
        return Objects.requireNonNull(value, () -> what + " must not be null");
    }

    private static void checkVersion(String label, long expected, long actual) {
        if (expected != ANY && expected != actual) {
            throw new VersionConflictException(label, expected, actual);
        }
    }

    private static final long ANY = BlockStore.ANY_VERSION;

    // ---------------------------------------------------------------------------------------------
    // Blocks

    /** A block as one agent sees it: its own, or shared with it (then with the share's permission). */
    private record Row(long id, String ownerAgentId, Block block) {
    }

    private final class Blocks implements BlockStore {
        private static final String COLUMNS = "b.id, b.agent_id, b.label, b.description, b.value, b.char_limit, b.type, "
                + "b.pinned, b.version, b.created_at, b.updated_at";
        private static final String RESOLVE = "SELECT " + COLUMNS + ", b.permission AS effective, 0 AS shared FROM blocks b "
                + "WHERE b.user_id = :u AND b.agent_id = :a AND b.label = :l "
                + "UNION ALL SELECT " + COLUMNS + ", s.permission AS effective, 1 AS shared FROM blocks b "
                + "JOIN block_shares s ON s.block_id = b.id "
                + "WHERE s.user_id = :u AND s.agent_id = :a AND b.user_id = :u AND b.label = :l ORDER BY shared";

        private Row row(ResultSet rs) throws SQLException {
            Block block = new Block(rs.getString("label"), rs.getString("description"), rs.getString("value"),
                    rs.getInt("char_limit"), BlockType.valueOf(rs.getString("type")),
                    MemoryPermission.valueOf(rs.getString("effective")), rs.getBoolean("pinned"), rs.getLong("version"),
                    rs.getString("agent_id"), instant(rs.getLong("created_at")), instant(rs.getLong("updated_at")));
            return new Row(rs.getLong("id"), rs.getString("agent_id"), block);
        }

        private Optional<Row> resolve(Handle h, Scope scope, String label) {
            return h.createQuery(RESOLVE).bind("u", scope.userId()).bind("a", scope.agentId()).bind("l", label)
                    .map((rs, ctx) -> row(rs)).findFirst();
        }

        private Row require(Handle h, Scope scope, String label) {
            return resolve(h, scope, label).orElseThrow(() -> new NotFoundException(
                    "Agent '" + scope.agentId() + "' has no block labelled '" + label + "'."));
        }

        private Row requireOwn(Handle h, Scope scope, String label) {
            Row row = require(h, scope, label);
            if (!row.ownerAgentId().equals(scope.agentId())) {
                throw new NotFoundException("Agent '" + scope.agentId() + "' does not own a block labelled '" + label
                        + "' (a block shared with it can only be archived, loaded or shared by its owner).");
            }
            return row;
        }

        private DuplicateException duplicate(Scope scope, String label) {
            return new DuplicateException("Agent '" + scope.agentId() + "' already has a block labelled '" + label
                    + "'; choose another label or edit that block.");
        }

        @Override
        public Block create(Scope scope, NewBlock block) {
            notNull(scope, "scope");
            notNull(block, "block");
            return write(h -> insert(h, scope, block, "create"));
        }

        private Block insert(Handle h, Scope scope, NewBlock block, String operation) {
            if (resolve(h, scope, block.label()).isPresent()) {
                throw duplicate(scope, block.label());
            }
            Instant now = now();
            long t = micros(now);
            long id = h.createQuery("""
                    INSERT INTO blocks (user_id, agent_id, label, description, value, char_limit, type, permission, pinned,
                                        version, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING id""")
                    .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, block.label()).bind(3, block.description())
                    .bind(4, block.value()).bind(5, block.limit()).bind(6, block.type().name())
                    .bind(7, block.permission().name()).bind(8, block.pinned()).bind(9, t).bind(10, t)
                    .mapTo(Long.class).one();
            addVersion(h, id, 1, block.value(), operation, t);
            change(h, ChangeEvent.Entity.BLOCK, block.label(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
            return new Block(block.label(), block.description(), block.value(), block.limit(), block.type(),
                    block.permission(), block.pinned(), 1, scope.agentId(), now, now);
        }

        private void addVersion(Handle h, long blockId, long version, String value, String operation, long t) {
            h.createUpdate("INSERT INTO block_versions (block_id, version, value, operation, committed_at) VALUES (?, ?, ?, ?, ?)")
                    .bind(0, blockId).bind(1, version).bind(2, value).bind(3, operation).bind(4, t).execute();
        }

        @Override
        public Optional<Block> get(Scope scope, String label) {
            notNull(scope, "scope");
            notNull(label, "label");
            return read(h -> resolve(h, scope, label).map(Row::block));
        }

        @Override
        public List<Block> list(Scope scope) {
            notNull(scope, "scope");
            return read(h -> h.createQuery("""
                    SELECT * FROM (
                      SELECT %1$s, b.permission AS effective FROM blocks b WHERE b.user_id = :u AND b.agent_id = :a
                      UNION ALL
                      SELECT %1$s, s.permission AS effective FROM blocks b JOIN block_shares s ON s.block_id = b.id
                      WHERE s.user_id = :u AND s.agent_id = :a AND b.user_id = :u) x
                    ORDER BY pinned DESC, label COLLATE "C\"""".formatted(COLUMNS))
                    .bind("u", scope.userId()).bind("a", scope.agentId())
                    .map((rs, ctx) -> row(rs).block()).list());
        }

        @Override
        public Block append(Scope scope, String label, String text, long expectedVersion) {
            notNull(scope, "scope");
            notNull(label, "label");
            notNull(text, "text");
            return write(h -> {
                Row row = require(h, scope, label);
                return update(h, scope, row, row.block().value() + text, expectedVersion, "append");
            });
        }

        @Override
        public Block replace(Scope scope, String label, String value, long expectedVersion) {
            notNull(scope, "scope");
            notNull(label, "label");
            notNull(value, "value");
            return write(h -> update(h, scope, require(h, scope, label), value, expectedVersion, "replace"));
        }

        private Block update(Handle h, Scope viewer, Row row, String newValue, long expectedVersion, String operation) {
            Block b = row.block();
            checkVersion(b.label(), expectedVersion, b.version());
            if (newValue.length() > b.limit()) {
                throw new LimitExceededException(b.label(), newValue.length(), b.limit(), b.size());
            }
            Instant now = now();
            long t = micros(now);
            long version = b.version() + 1;
            h.createUpdate("UPDATE blocks SET value = ?, version = ?, updated_at = ? WHERE id = ?")
                    .bind(0, newValue).bind(1, version).bind(2, t).bind(3, row.id()).execute();
            addVersion(h, row.id(), version, newValue, operation, t);
            change(h, ChangeEvent.Entity.BLOCK, b.label(), ChangeEvent.Op.UPSERT, viewer.userId(), row.ownerAgentId());
            return new Block(b.label(), b.description(), newValue, b.limit(), b.type(), b.permission(), b.pinned(), version,
                    b.ownerAgentId(), b.createdAt(), now);
        }

        @Override
        public void delete(Scope scope, String label, long expectedVersion) {
            notNull(scope, "scope");
            notNull(label, "label");
            write(h -> {
                Row row = require(h, scope, label);
                checkVersion(label, expectedVersion, row.block().version());
                deleteRow(h, scope.userId(), row);
                return null;
            });
        }

        private void deleteRow(Handle h, String userId, Row row) {
            h.createUpdate("DELETE FROM blocks WHERE id = ?").bind(0, row.id()).execute();
            change(h, ChangeEvent.Entity.BLOCK, row.block().label(), ChangeEvent.Op.DELETE, userId, row.ownerAgentId());
        }

        @Override
        public List<BlockVersion> history(Scope scope, String label) {
            notNull(scope, "scope");
            notNull(label, "label");
            return read(h -> resolve(h, scope, label).map(row -> h.createQuery(
                            "SELECT version, value, operation, committed_at FROM block_versions WHERE block_id = ? ORDER BY version")
                    .bind(0, row.id())
                    .map((rs, ctx) -> new BlockVersion(rs.getLong("version"), rs.getString("value"), rs.getString("operation"),
                            instant(rs.getLong("committed_at"))))
                    .list()).orElse(List.of()));
        }

        @Override
        public Block restore(Scope scope, String label, long version, long expectedVersion) {
            notNull(scope, "scope");
            notNull(label, "label");
            return write(h -> {
                Row row = require(h, scope, label);
                String value = h.createQuery("SELECT value FROM block_versions WHERE block_id = ? AND version = ?")
                        .bind(0, row.id()).bind(1, version).mapTo(String.class).findOne()
                        .orElseThrow(() -> new NotFoundException("Block '" + label + "' has no version " + version
                                + "; its versions run from 1 to " + row.block().version() + "."));
                return update(h, scope, row, value, expectedVersion, "restore");
            });
        }

        @Override
        public void share(Scope owner, String label, String agentId, MemoryPermission permission) {
            notNull(owner, "owner");
            notNull(label, "label");
            Scope target = Scope.of(owner.userId(), agentId); // validates the agent id
            notNull(permission, "permission");
            if (agentId.equals(owner.agentId())) {
                throw new IllegalArgumentException("block '" + label + "' cannot be shared with the agent that owns it");
            }
            write(h -> {
                Row row = requireOwn(h, owner, label);
                Optional<Row> existing = resolve(h, target, label);
                if (existing.isPresent() && existing.get().id() != row.id()) {
                    throw duplicate(target, label);
                }
                h.createUpdate("""
                        INSERT INTO block_shares (block_id, user_id, agent_id, permission, created_at) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (block_id, agent_id) DO UPDATE SET permission = excluded.permission""")
                        .bind(0, row.id()).bind(1, owner.userId()).bind(2, agentId).bind(3, permission.name())
                        .bind(4, micros(now())).execute();
                return null;
            });
        }

        @Override
        public boolean unshare(Scope owner, String label, String agentId) {
            notNull(owner, "owner");
            notNull(label, "label");
            Scope.of(owner.userId(), agentId);
            return write(h -> h.createUpdate("DELETE FROM block_shares WHERE block_id = ? AND agent_id = ?")
                    .bind(0, requireOwn(h, owner, label).id()).bind(1, agentId).execute() > 0);
        }

        @Override
        public ArchivalEntry archive(Scope scope, String label, boolean keepBlock) {
            notNull(scope, "scope");
            notNull(label, "label");
            return write(h -> archive(h, scope, label, keepBlock));
        }

        private ArchivalEntry archive(Handle h, Scope scope, String label, boolean keepBlock) {
            Row row = requireOwn(h, scope, label);
            Block block = row.block();
            if (block.value().isBlank()) {
                throw new IllegalArgumentException("block '" + label + "' is empty; there is nothing to archive");
            }
            Instant now = now();
            Optional<ArchivalEntry> existing = Archival.byLabel(h, scope, label);
            ArchivalEntry entry;
            if (existing.isPresent()) {
                h.createUpdate("UPDATE archival SET content = ?, updated_at = ? WHERE id = ?")
                        .bind(0, block.value()).bind(1, micros(now)).bind(2, existing.get().id()).execute();
                entry = new ArchivalEntry(existing.get().id(), Optional.of(label), block.value(), existing.get().tags(),
                        existing.get().createdAt(), now);
            } else {
                entry = Archival.insert(h, scope, NewArchivalEntry.labelled(label, block.value(), List.of()), now);
            }
            change(h, ChangeEvent.Entity.ARCHIVAL, entry.id(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
            if (!keepBlock) {
                deleteRow(h, scope.userId(), row);
            }
            return entry;
        }

        @Override
        public Block load(Scope scope, String archivalLabel, String blockLabel, int limit) {
            notNull(scope, "scope");
            notNull(archivalLabel, "archival label");
            requireText(blockLabel, "block label");
            return write(h -> load(h, scope, archivalLabel, blockLabel, limit));
        }

        private Block load(Handle h, Scope scope, String archivalLabel, String blockLabel, int limit) {
            ArchivalEntry entry = Archival.byLabel(h, scope, archivalLabel).orElseThrow(() -> Archival.noLabel(archivalLabel));
            if (limit <= 0) {
                throw new IllegalArgumentException("block limit must be positive, got " + limit);
            }
            if (entry.content().length() > limit) {
                throw new LimitExceededException(blockLabel, entry.content().length(), limit, 0);
            }
            NewBlock block = NewBlock.builder(blockLabel)
                    .description("Loaded from archival memory entry '" + archivalLabel + "'.")
                    .value(entry.content()).limit(limit).type(BlockType.WORKING).build();
            Block created = insert(h, scope, block, "load");
            if (archivalLabel.equals(blockLabel)) {
                h.createUpdate("DELETE FROM archival WHERE id = ?").bind(0, entry.id()).execute();
                change(h, ChangeEvent.Entity.ARCHIVAL, entry.id(), ChangeEvent.Op.DELETE, scope.userId(), scope.agentId());
            }
            return created;
        }

        @Override
        public Swap swap(Scope scope, String outLabel, String inLabel, int limit) {
            notNull(scope, "scope");
            notNull(outLabel, "label to archive");
            requireText(inLabel, "label to load");
            return write(h -> new Swap(archive(h, scope, outLabel, false), load(h, scope, inLabel, inLabel, limit)));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Archival memory

    private final class Archival implements ArchivalStore {
        static ArchivalEntry row(ResultSet rs) throws SQLException {
            return new ArchivalEntry(rs.getString("id"), Optional.ofNullable(rs.getString("label")), rs.getString("content"),
                    tags(rs.getString("tags")), instant(rs.getLong("created_at")), instant(rs.getLong("updated_at")));
        }

        static Optional<ArchivalEntry> byLabel(Handle h, Scope scope, String label) {
            return h.createQuery("SELECT * FROM archival WHERE user_id = ? AND agent_id = ? AND label = ?")
                    .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, label).map((rs, ctx) -> row(rs)).findOne();
        }

        static NotFoundException noLabel(String label) {
            return new NotFoundException("There is no archival entry labelled '" + label + "' for this agent.");
        }

        static DuplicateException duplicate(String label) {
            return new DuplicateException("An archival entry labelled '" + label
                    + "' already exists for this agent; append to it or choose another label.");
        }

        static ArchivalEntry insert(Handle h, Scope scope, NewArchivalEntry entry, Instant now) {
            if (entry.label().isPresent() && byLabel(h, scope, entry.label().get()).isPresent()) {
                throw duplicate(entry.label().get());
            }
            String id = newId("archival");
            h.createUpdate("""
                    INSERT INTO archival (id, user_id, agent_id, label, content, tags, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)""")
                    .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).bind(3, entry.label().orElse(null))
                    .bind(4, entry.content()).bind(5, tags(entry.tags())).bind(6, micros(now)).bind(7, micros(now)).execute();
            return new ArchivalEntry(id, entry.label(), entry.content(), entry.tags(), now, now);
        }

        @Override
        public ArchivalEntry insert(Scope scope, NewArchivalEntry entry) {
            return insertAll(scope, List.of(notNull(entry, "entry"))).get(0);
        }

        @Override
        public List<ArchivalEntry> insertAll(Scope scope, List<NewArchivalEntry> entries) {
            notNull(scope, "scope");
            notNull(entries, "entries").forEach(e -> notNull(e, "each of entries"));
            if (entries.isEmpty()) {
                return List.of();
            }
            return write(h -> {
                Set<String> labels = new HashSet<>();
                for (NewArchivalEntry e : entries) {
                    if (e.label().isPresent() && !labels.add(e.label().get())) {
                        throw duplicate(e.label().get());
                    }
                }
                Instant now = now();
                List<ArchivalEntry> out = new ArrayList<>(entries.size());
                for (NewArchivalEntry e : entries) {
                    ArchivalEntry stored = insert(h, scope, e, now);
                    change(h, ChangeEvent.Entity.ARCHIVAL, stored.id(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
                    out.add(stored);
                }
                return out;
            });
        }

        @Override
        public ArchivalEntry append(Scope scope, String label, String text) {
            notNull(scope, "scope");
            notNull(label, "label");
            notNull(text, "text");
            return write(h -> {
                ArchivalEntry e = byLabel(h, scope, label).orElseThrow(() -> noLabel(label));
                Instant now = now();
                String content = e.content() + text;
                h.createUpdate("UPDATE archival SET content = ?, updated_at = ? WHERE id = ?")
                        .bind(0, content).bind(1, micros(now)).bind(2, e.id()).execute();
                change(h, ChangeEvent.Entity.ARCHIVAL, e.id(), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
                return new ArchivalEntry(e.id(), e.label(), content, e.tags(), e.createdAt(), now);
            });
        }

        @Override
        public Optional<ArchivalEntry> get(Scope scope, String id) {
            notNull(scope, "scope");
            notNull(id, "id");
            return read(h -> h.createQuery("SELECT * FROM archival WHERE id = ? AND user_id = ? AND agent_id = ?")
                    .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).map((rs, ctx) -> row(rs)).findOne());
        }

        @Override
        public Optional<ArchivalEntry> getByLabel(Scope scope, String label) {
            notNull(scope, "scope");
            notNull(label, "label");
            return read(h -> byLabel(h, scope, label));
        }

        @Override
        public boolean delete(Scope scope, String id) {
            notNull(scope, "scope");
            notNull(id, "id");
            return write(h -> {
                int n = h.createUpdate("DELETE FROM archival WHERE id = ? AND user_id = ? AND agent_id = ?")
                        .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).execute();
                if (n > 0) {
                    change(h, ChangeEvent.Entity.ARCHIVAL, id, ChangeEvent.Op.DELETE, scope.userId(), scope.agentId());
                }
                return n > 0;
            });
        }

        @Override
        public List<ArchivalEntry> list(Scope scope, int offset, int limit) {
            notNull(scope, "scope");
            requirePaging(offset, limit);
            return read(h -> h.createQuery("""
                    SELECT * FROM archival WHERE user_id = ? AND agent_id = ?
                    ORDER BY created_at DESC, pos DESC LIMIT ? OFFSET ?""")
                    .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, limit).bind(3, offset)
                    .map((rs, ctx) -> row(rs)).list());
        }

        @Override
        public long count(Scope scope) {
            notNull(scope, "scope");
            return read(h -> h.createQuery("SELECT count(*) FROM archival WHERE user_id = ? AND agent_id = ?")
                    .bind(0, scope.userId()).bind(1, scope.agentId()).mapTo(Long.class).one());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Notes

    private final class Notes implements NoteStore {
        private Note row(ResultSet rs) throws SQLException {
            return new Note(rs.getString("id"), rs.getString("user_id"), rs.getString("content"),
                    instant(rs.getLong("created_at")), instant(rs.getLong("updated_at")));
        }

        private NotFoundException noNote(String id) {
            return new NotFoundException("There is no note '" + id + "' for this user.");
        }

        @Override
        public Note save(String userId, String content) {
            Scope.of(userId, "notes");
            requireText(content, "note content");
            return write(h -> {
                String id = newId("note");
                Instant now = now();
                h.createUpdate("INSERT INTO notes (id, user_id, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
                        .bind(0, id).bind(1, userId).bind(2, content).bind(3, micros(now)).bind(4, micros(now)).execute();
                change(h, ChangeEvent.Entity.NOTE, id, ChangeEvent.Op.UPSERT, userId, null);
                return new Note(id, userId, content, now, now);
            });
        }

        @Override
        public Note update(String userId, String noteId, String content) {
            Scope.of(userId, "notes");
            notNull(noteId, "note id");
            requireText(content, "note content");
            return write(h -> {
                Note existing = h.createQuery("SELECT * FROM notes WHERE id = ? AND user_id = ?").bind(0, noteId).bind(1, userId)
                        .map((rs, ctx) -> row(rs)).findOne().orElseThrow(() -> noNote(noteId));
                Instant now = now();
                h.createUpdate("UPDATE notes SET content = ?, updated_at = ? WHERE id = ?")
                        .bind(0, content).bind(1, micros(now)).bind(2, noteId).execute();
                change(h, ChangeEvent.Entity.NOTE, noteId, ChangeEvent.Op.UPSERT, userId, null);
                return new Note(noteId, userId, content, existing.createdAt(), now);
            });
        }

        @Override
        public boolean delete(String userId, String noteId) {
            Scope.of(userId, "notes");
            notNull(noteId, "note id");
            return write(h -> {
                int n = h.createUpdate("DELETE FROM notes WHERE id = ? AND user_id = ?").bind(0, noteId).bind(1, userId).execute();
                if (n > 0) {
                    change(h, ChangeEvent.Entity.NOTE, noteId, ChangeEvent.Op.DELETE, userId, null);
                }
                return n > 0;
            });
        }

        @Override
        public Optional<Note> get(String userId, String noteId) {
            Scope.of(userId, "notes");
            notNull(noteId, "note id");
            return read(h -> h.createQuery("SELECT * FROM notes WHERE id = ? AND user_id = ?").bind(0, noteId).bind(1, userId)
                    .map((rs, ctx) -> row(rs)).findOne());
        }

        @Override
        public List<Note> list(String userId, int offset, int limit) {
            Scope.of(userId, "notes");
            requirePaging(offset, limit);
            return read(h -> h.createQuery(
                            "SELECT * FROM notes WHERE user_id = ? ORDER BY created_at DESC, pos DESC LIMIT ? OFFSET ?")
                    .bind(0, userId).bind(1, limit).bind(2, offset).map((rs, ctx) -> row(rs)).list());
        }

        @Override
        public long count(String userId) {
            Scope.of(userId, "notes");
            return read(h -> h.createQuery("SELECT count(*) FROM notes WHERE user_id = ?").bind(0, userId)
                    .mapTo(Long.class).one());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Messages

    private final class Messages implements MessageStore {
        private ConversationMessage row(ResultSet rs) throws SQLException {
            return new ConversationMessage(rs.getLong("id"), rs.getString("agent_id"), rs.getString("user_id"),
                    rs.getString("session_id"), MessageRole.valueOf(rs.getString("role")), rs.getString("content"),
                    toolCalls(rs.getString("tool_calls")), Optional.ofNullable(rs.getString("tool_call_id")),
                    instant(rs.getLong("created_at")), rs.getBoolean("in_context"));
        }

        @Override
        public ConversationMessage append(Scope scope, NewMessage message) {
            return appendAll(scope, List.of(notNull(message, "message"))).get(0);
        }

        @Override
        public List<ConversationMessage> appendAll(Scope scope, List<NewMessage> list) {
            notNull(scope, "scope");
            notNull(list, "messages").forEach(m -> notNull(m, "each of messages"));
            return write(h -> {
                Instant now = now();
                List<ConversationMessage> out = new ArrayList<>(list.size());
                for (NewMessage m : list) {
                    long id = h.createQuery("""
                            INSERT INTO messages (user_id, agent_id, session_id, role, content, tool_calls, tool_call_id,
                                                  created_at, in_context)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, TRUE) RETURNING id""")
                            .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, m.sessionId()).bind(3, m.role().name())
                            .bind(4, m.content()).bind(5, toolCalls(m.toolCalls())).bind(6, m.toolCallId().orElse(null))
                            .bind(7, micros(now)).mapTo(Long.class).one();
                    change(h, ChangeEvent.Entity.MESSAGE, Long.toString(id), ChangeEvent.Op.UPSERT, scope.userId(), scope.agentId());
                    out.add(new ConversationMessage(id, scope.agentId(), scope.userId(), m.sessionId(), m.role(), m.content(),
                            m.toolCalls(), m.toolCallId(), now, true));
                }
                return out;
            });
        }

        @Override
        public Optional<ConversationMessage> get(Scope scope, long id) {
            notNull(scope, "scope");
            return read(h -> h.createQuery("SELECT * FROM messages WHERE id = ? AND user_id = ? AND agent_id = ?")
                    .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).map((rs, ctx) -> row(rs)).findOne());
        }

        @Override
        public List<ConversationMessage> list(Scope scope, MessageQuery q) {
            notNull(scope, "scope");
            notNull(q, "query");
            StringBuilder sql = new StringBuilder("SELECT * FROM messages WHERE user_id = :u AND agent_id = :a");
            q.sessionId().ifPresent(s -> sql.append(" AND session_id = :s"));
            q.afterId().ifPresent(s -> sql.append(" AND id > :after"));
            q.beforeId().ifPresent(s -> sql.append(" AND id < :before"));
            q.from().ifPresent(s -> sql.append(" AND created_at >= :from"));
            q.until().ifPresent(s -> sql.append(" AND created_at < :until"));
            if (q.inContextOnly()) {
                sql.append(" AND in_context");
            }
            sql.append(q.newestFirst() ? " ORDER BY id DESC" : " ORDER BY id").append(" LIMIT :limit");
            List<ConversationMessage> result = read(h -> {
                Query query = h.createQuery(sql.toString()).bind("u", scope.userId()).bind("a", scope.agentId())
                        .bind("limit", q.limit());
                q.sessionId().ifPresent(s -> query.bind("s", s));
                q.afterId().ifPresent(s -> query.bind("after", s));
                q.beforeId().ifPresent(s -> query.bind("before", s));
                q.from().ifPresent(s -> query.bind("from", micros(s)));
                q.until().ifPresent(s -> query.bind("until", micros(s)));
                return query.map((rs, ctx) -> row(rs)).list();
            });
            if (q.newestFirst()) {
                List<ConversationMessage> copy = new ArrayList<>(result);
                java.util.Collections.reverse(copy);
                return copy;
            }
            return result;
        }

        @Override
        public long count(Scope scope) {
            notNull(scope, "scope");
            return read(h -> h.createQuery("SELECT count(*) FROM messages WHERE user_id = ? AND agent_id = ?")
                    .bind(0, scope.userId()).bind(1, scope.agentId()).mapTo(Long.class).one());
        }

        @Override
        public int markOutOfContext(Scope scope, Collection<Long> ids) {
            notNull(scope, "scope");
            notNull(ids, "ids").forEach(id -> notNull(id, "each of ids"));
            if (ids.isEmpty()) {
                return 0;
            }
            return write(h -> h.createUpdate("""
                    UPDATE messages SET in_context = FALSE
                    WHERE user_id = :u AND agent_id = :a AND in_context AND id = ANY(:ids)""")
                    .bind("u", scope.userId()).bind("a", scope.agentId()).bindArray("ids", Long.class, ids.toArray())
                    .execute());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Agents and the change log

    private final class Agents implements AgentStore {
        private AgentRecord row(ResultSet rs) throws SQLException {
            return new AgentRecord(Scope.of(rs.getString("user_id"), rs.getString("agent_id")), rs.getString("name"),
                    rs.getString("definition"), instant(rs.getLong("created_at")), instant(rs.getLong("updated_at")));
        }

        private Optional<AgentRecord> find(Handle h, Scope scope) {
            return h.createQuery("SELECT * FROM agents WHERE user_id = ? AND agent_id = ?")
                    .bind(0, scope.userId()).bind(1, scope.agentId()).map((rs, ctx) -> row(rs)).findOne();
        }

        private Optional<AgentRecord> named(Handle h, String userId, String name) {
            return h.createQuery("SELECT * FROM agents WHERE user_id = ? AND name = ?")
                    .bind(0, userId).bind(1, name).map((rs, ctx) -> row(rs)).findOne();
        }

        private void check(String name, String definition) {
            requireText(name, "agent name");
            requireText(definition, "agent definition");
        }

        private DuplicateException duplicateName(String userId, String name) {
            return new DuplicateException("User '" + userId + "' already has an agent named '" + name + "'; choose another name.");
        }

        @Override
        public AgentRecord create(Scope scope, String name, String definition) {
            notNull(scope, "scope");
            check(name, definition);
            return write(h -> {
                if (find(h, scope).isPresent()) {
                    throw new DuplicateException("User '" + scope.userId() + "' already has an agent with id '"
                            + scope.agentId() + "'; choose another id or update that agent.");
                }
                if (named(h, scope.userId(), name).isPresent()) {
                    throw duplicateName(scope.userId(), name);
                }
                Instant now = now();
                h.createUpdate("""
                        INSERT INTO agents (user_id, agent_id, name, definition, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)""")
                        .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, name).bind(3, definition)
                        .bind(4, micros(now)).bind(5, micros(now)).execute();
                return new AgentRecord(scope, name, definition, now, now);
            });
        }

        @Override
        public AgentRecord update(Scope scope, String name, String definition) {
            notNull(scope, "scope");
            check(name, definition);
            return write(h -> {
                AgentRecord existing = find(h, scope).orElseThrow(() -> new NotFoundException(
                        "User '" + scope.userId() + "' has no agent with id '" + scope.agentId() + "'."));
                Optional<AgentRecord> other = named(h, scope.userId(), name);
                if (other.isPresent() && !other.get().scope().equals(scope)) {
                    throw duplicateName(scope.userId(), name);
                }
                Instant now = now();
                h.createUpdate("UPDATE agents SET name = ?, definition = ?, updated_at = ? WHERE user_id = ? AND agent_id = ?")
                        .bind(0, name).bind(1, definition).bind(2, micros(now)).bind(3, scope.userId()).bind(4, scope.agentId())
                        .execute();
                return new AgentRecord(scope, name, definition, existing.createdAt(), now);
            });
        }

        @Override
        public Optional<AgentRecord> get(Scope scope) {
            notNull(scope, "scope");
            return read(h -> find(h, scope));
        }

        @Override
        public Optional<AgentRecord> findByName(String userId, String name) {
            Scope.of(userId, "agents");
            notNull(name, "agent name");
            return read(h -> named(h, userId, name));
        }

        @Override
        public List<AgentRecord> list(String userId) {
            Scope.of(userId, "agents");
            return read(h -> h.createQuery("SELECT * FROM agents WHERE user_id = ? ORDER BY name COLLATE \"C\"")
                    .bind(0, userId).map((rs, ctx) -> row(rs)).list());
        }

        @Override
        public boolean delete(Scope scope) {
            notNull(scope, "scope");
            return write(h -> h.createUpdate("DELETE FROM agents WHERE user_id = ? AND agent_id = ?")
                    .bind(0, scope.userId()).bind(1, scope.agentId()).execute() > 0);
        }
    }

    private final class Changes implements ChangeLog {
        @Override
        public List<ChangeEvent> since(long afterSeq, int max) {
            if (max <= 0) {
                throw new IllegalArgumentException("max must be positive, got " + max);
            }
            return read(h -> h.createQuery(
                            "SELECT seq, entity, entity_id, op, user_id, agent_id FROM changes WHERE seq > ? ORDER BY seq LIMIT ?")
                    .bind(0, afterSeq).bind(1, max)
                    .map((rs, ctx) -> new ChangeEvent(rs.getLong("seq"), ChangeEvent.Entity.valueOf(rs.getString("entity")),
                            rs.getString("entity_id"), ChangeEvent.Op.valueOf(rs.getString("op")), rs.getString("user_id"),
                            Optional.ofNullable(rs.getString("agent_id"))))
                    .list());
        }

        @Override
        public long lastSeq() {
            return read(h -> h.createQuery("SELECT coalesce(max(seq), 0) FROM changes").mapTo(Long.class).one());
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The store

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
        notNull(scope, "scope");
        return read(h -> h.createQuery("""
                SELECT (SELECT count(*) FROM blocks WHERE user_id = :u AND agent_id = :a)
                     + (SELECT count(*) FROM block_shares WHERE user_id = :u AND agent_id = :a) AS blocks,
                       (SELECT count(*) FROM archival WHERE user_id = :u AND agent_id = :a) AS archival,
                       (SELECT count(*) FROM notes WHERE user_id = :u) AS notes,
                       (SELECT count(*) FROM messages WHERE user_id = :u AND agent_id = :a) AS messages,
                       (SELECT count(*) FROM messages WHERE user_id = :u AND agent_id = :a AND in_context) AS in_context,
                       (SELECT max(created_at) FROM messages WHERE user_id = :u AND agent_id = :a) AS last_at""")
                .bind("u", scope.userId()).bind("a", scope.agentId())
                .map((rs, ctx) -> {
                    long last = rs.getLong("last_at");
                    Optional<Instant> lastAt = rs.wasNull() ? Optional.empty() : Optional.of(instant(last));
                    return new MemoryStats(rs.getLong("blocks"), rs.getLong("archival"), rs.getLong("notes"),
                            rs.getLong("messages"), rs.getLong("in_context"), lastAt);
                }).one());
    }

    @Override
    public void close() {
        closed = true;
        dataSource.close();
    }

    @Override
    public String toString() {
        return "PostgresMemoryStore[" + dataSource.getJdbcUrl() + "]";
    }

    /**
     * Connects, writes a block for user {@code sample} and agent {@code helper}, and prints what the
     * store holds: {@code PostgresMemoryStore JDBC_URL [USER [PASSWORD]]}.
     */
    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: PostgresMemoryStore JDBC_URL [USER [PASSWORD]]");
            System.exit(2);
        }
        try (MemoryStore store = open(args[0], args.length > 1 ? args[1] : null, args.length > 2 ? args[2] : null)) {
            Scope scope = Scope.of("sample", "helper");
            Block block = store.blocks().get(scope, "human").orElseGet(() -> store.blocks().create(scope,
                    NewBlock.builder("human").description("What I know about the user").build()));
            block = store.blocks().append(scope, "human", (block.value().isEmpty() ? "" : "\n") + "Visited at " + Instant.now(),
                    block.version());
            System.out.println("Block 'human' of " + scope + " is at version " + block.version() + ":");
            System.out.println(block.value());
            System.out.println(store.stats(scope));
        }
    }

    // ---------------------------------------------------------------------------------------------
    // JSON columns

    private static String tags(List<String> tags) {
        ArrayNode array = JSON.createArrayNode();
        tags.forEach(array::add);
        return array.toString();
    }

    private static List<String> tags(String json) {
        List<String> out = new ArrayList<>();
        JSON.readTree(json).forEach(n -> out.add(n.asString()));
        return out;
    }

    private static String toolCalls(List<MessageToolCall> calls) {
        if (calls.isEmpty()) {
            return null;
        }
        ArrayNode array = JSON.createArrayNode();
        calls.forEach(c -> array.addObject().put("id", c.id()).put("name", c.name()).put("arguments", c.arguments()));
        return array.toString();
    }

    private static List<MessageToolCall> toolCalls(String json) {
        if (json == null) {
            return List.of();
        }
        List<MessageToolCall> out = new ArrayList<>();
        for (JsonNode n : JSON.readTree(json)) {
            out.add(new MessageToolCall(n.path("id").asString(), n.path("name").asString(), n.path("arguments").asString()));
        }
        return out;
    }
}
