package dev.engram.memory;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** {@link BlockStore} over the SQLite store. */
final class SqliteBlocks implements BlockStore {
    /** A block row as one agent sees it: its own, or shared with it. */
    private record Row(long id, String ownerAgentId, Block block) {
    }

    private static final String COLUMNS = "b.id, b.agent_id, b.label, b.description, b.value, b.char_limit, b.type, "
            + "b.pinned, b.version, b.created_at, b.updated_at";

    /** Own block first, then a block shared with the agent; the effective permission is the share's for the latter. */
    private static final String RESOLVE = "SELECT " + COLUMNS + ", b.permission AS effective FROM blocks b "
            + "WHERE b.user_id = :u AND b.agent_id = :a AND b.label = :l "
            + "UNION ALL SELECT " + COLUMNS + ", s.permission AS effective FROM blocks b "
            + "JOIN block_shares s ON s.block_id = b.id "
            + "WHERE s.user_id = :u AND s.agent_id = :a AND b.user_id = :u AND b.label = :l";

    private final SqliteMemoryStore store;

    SqliteBlocks(SqliteMemoryStore store) {
        this.store = store;
    }

    private static Row row(ResultSet rs) throws SQLException {
        Block block = new Block(rs.getString("label"), rs.getString("description"), rs.getString("value"),
                rs.getInt("char_limit"), BlockType.valueOf(rs.getString("type")),
                MemoryPermission.valueOf(rs.getString("effective")), rs.getInt("pinned") != 0, rs.getLong("version"),
                rs.getString("agent_id"), SqlTimes.fromMicros(rs.getLong("created_at")),
                SqlTimes.fromMicros(rs.getLong("updated_at")));
        return new Row(rs.getLong("id"), rs.getString("agent_id"), block);
    }

    private static Optional<Row> resolve(Handle h, Scope scope, String label) {
        return h.createQuery(RESOLVE).bind("u", scope.userId()).bind("a", scope.agentId()).bind("l", label)
                .map((rs, ctx) -> row(rs)).findFirst();
    }

    private static Row require(Handle h, Scope scope, String label) {
        return resolve(h, scope, label).orElseThrow(() -> MemoryErrors.noBlock(scope, label));
    }

    private static Row requireOwn(Handle h, Scope scope, String label) {
        Row row = require(h, scope, label);
        if (!row.ownerAgentId().equals(scope.agentId())) {
            throw MemoryErrors.notOwnBlock(scope, label);
        }
        return row;
    }

    @Override
    public Block create(Scope scope, NewBlock block) {
        Checks.notNull(scope, "scope");
        Checks.notNull(block, "block");
        return store.write(h -> insert(h, scope, block, "create"));
    }

    private Block insert(Handle h, Scope scope, NewBlock block, String operation) {
        if (resolve(h, scope, block.label()).isPresent()) {
            throw MemoryErrors.duplicateBlock(scope, block.label());
        }
        Instant now = store.now();
        long micros = SqlTimes.toMicros(now);
        h.createUpdate("""
                INSERT INTO blocks (user_id, agent_id, label, description, value, char_limit, type, permission, pinned,
                                    version, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)""")
                .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, block.label()).bind(3, block.description())
                .bind(4, block.value()).bind(5, block.limit()).bind(6, block.type().name())
                .bind(7, block.permission().name()).bind(8, block.pinned() ? 1 : 0).bind(9, micros).bind(10, micros)
                .execute();
        long id = h.createQuery("SELECT last_insert_rowid()").mapTo(Long.class).one();
        addVersion(h, id, 1, block.value(), operation, micros);
        SqliteMemoryStore.recordChange(h, ChangeEvent.Entity.BLOCK, block.label(), ChangeEvent.Op.UPSERT,
                scope.userId(), scope.agentId());
        return new Block(block.label(), block.description(), block.value(), block.limit(), block.type(),
                block.permission(), block.pinned(), 1, scope.agentId(), now, now);
    }

    private static void addVersion(Handle h, long blockId, long version, String value, String operation, long micros) {
        h.createUpdate("INSERT INTO block_versions (block_id, version, value, operation, committed_at) VALUES (?, ?, ?, ?, ?)")
                .bind(0, blockId).bind(1, version).bind(2, value).bind(3, operation).bind(4, micros).execute();
    }

    @Override
    public Optional<Block> get(Scope scope, String label) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        return store.read(h -> resolve(h, scope, label).map(Row::block));
    }

    @Override
    public List<Block> list(Scope scope) {
        Checks.notNull(scope, "scope");
        return store.read(h -> h.createQuery("""
                SELECT * FROM (
                  SELECT %s, b.permission AS effective FROM blocks b WHERE b.user_id = :u AND b.agent_id = :a
                  UNION ALL
                  SELECT %s, s.permission AS effective FROM blocks b JOIN block_shares s ON s.block_id = b.id
                  WHERE s.user_id = :u AND s.agent_id = :a AND b.user_id = :u)
                ORDER BY pinned DESC, label""".formatted(COLUMNS.replace("b.", "b."), COLUMNS))
                .bind("u", scope.userId()).bind("a", scope.agentId())
                .map((rs, ctx) -> row(rs).block()).list());
    }

    @Override
    public Block append(Scope scope, String label, String text, long expectedVersion) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        Checks.text(text, "text");
        return store.write(h -> {
            Row row = require(h, scope, label);
            return update(h, scope, row, row.block().value() + text, expectedVersion, "append");
        });
    }

    @Override
    public Block replace(Scope scope, String label, String value, long expectedVersion) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        Checks.text(value, "value");
        return store.write(h -> update(h, scope, require(h, scope, label), value, expectedVersion, "replace"));
    }

    private Block update(Handle h, Scope viewer, Row row, String newValue, long expectedVersion, String operation) {
        Block b = row.block();
        MemoryErrors.checkVersion(b.label(), expectedVersion, b.version());
        MemoryErrors.checkLimit(b.label(), newValue, b.limit(), b.size());
        Instant now = store.now();
        long micros = SqlTimes.toMicros(now);
        long version = b.version() + 1;
        int updated = h.createUpdate("UPDATE blocks SET value = ?, version = ?, updated_at = ? WHERE id = ? AND version = ?")
                .bind(0, newValue).bind(1, version).bind(2, micros).bind(3, row.id()).bind(4, b.version()).execute();
        if (updated != 1) {
            // Another process changed it between our read and write (same-process writers are serialised).
            throw new VersionConflictException(b.label(), b.version(), -1);
        }
        addVersion(h, row.id(), version, newValue, operation, micros);
        // Shares never cross users, so the viewer's user owns the block.
        SqliteMemoryStore.recordChange(h, ChangeEvent.Entity.BLOCK, b.label(), ChangeEvent.Op.UPSERT,
                viewer.userId(), row.ownerAgentId());
        return new Block(b.label(), b.description(), newValue, b.limit(), b.type(), b.permission(), b.pinned(), version,
                b.ownerAgentId(), b.createdAt(), now);
    }

    @Override
    public void delete(Scope scope, String label, long expectedVersion) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        store.write(h -> {
            Row row = require(h, scope, label);
            MemoryErrors.checkVersion(label, expectedVersion, row.block().version());
            deleteRow(h, scope.userId(), row);
            return null;
        });
    }

    private static void deleteRow(Handle h, String userId, Row row) {
        h.createUpdate("DELETE FROM blocks WHERE id = ?").bind(0, row.id()).execute();
        SqliteMemoryStore.recordChange(h, ChangeEvent.Entity.BLOCK, row.block().label(), ChangeEvent.Op.DELETE,
                userId, row.ownerAgentId());
    }

    @Override
    public List<BlockVersion> history(Scope scope, String label) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        return store.read(h -> resolve(h, scope, label)
                .map(row -> h.createQuery("""
                        SELECT version, value, operation, committed_at FROM block_versions
                        WHERE block_id = ? ORDER BY version""")
                        .bind(0, row.id())
                        .map((rs, ctx) -> new BlockVersion(rs.getLong("version"), rs.getString("value"),
                                rs.getString("operation"), SqlTimes.fromMicros(rs.getLong("committed_at"))))
                        .list())
                .orElse(List.of()));
    }

    @Override
    public Block restore(Scope scope, String label, long version, long expectedVersion) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        return store.write(h -> {
            Row row = require(h, scope, label);
            String value = h.createQuery("SELECT value FROM block_versions WHERE block_id = ? AND version = ?")
                    .bind(0, row.id()).bind(1, version).mapTo(String.class).findOne()
                    .orElseThrow(() -> MemoryErrors.noVersion(label, version, row.block().version()));
            return update(h, scope, row, value, expectedVersion, "restore");
        });
    }

    @Override
    public void share(Scope owner, String label, String agentId, MemoryPermission permission) {
        Checks.notNull(owner, "owner");
        Checks.notNull(label, "label");
        Checks.id(agentId, "agent id");
        Checks.notNull(permission, "permission");
        if (agentId.equals(owner.agentId())) {
            throw MemoryErrors.selfShare(label);
        }
        store.write(h -> {
            Row row = requireOwn(h, owner, label);
            Scope target = new Scope(owner.userId(), agentId);
            Optional<Row> existing = resolve(h, target, label);
            if (existing.isPresent() && existing.get().id() != row.id()) {
                throw MemoryErrors.duplicateBlock(target, label);
            }
            h.createUpdate("""
                    INSERT INTO block_shares (block_id, user_id, agent_id, permission, created_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (block_id, agent_id) DO UPDATE SET permission = excluded.permission""")
                    .bind(0, row.id()).bind(1, owner.userId()).bind(2, agentId).bind(3, permission.name())
                    .bind(4, SqlTimes.toMicros(store.now())).execute();
            return null;
        });
    }

    @Override
    public boolean unshare(Scope owner, String label, String agentId) {
        Checks.notNull(owner, "owner");
        Checks.notNull(label, "label");
        Checks.id(agentId, "agent id");
        return store.write(h -> {
            Row row = requireOwn(h, owner, label);
            return h.createUpdate("DELETE FROM block_shares WHERE block_id = ? AND agent_id = ?")
                    .bind(0, row.id()).bind(1, agentId).execute() > 0;
        });
    }

    @Override
    public ArchivalEntry archive(Scope scope, String label, boolean keepBlock) {
        Checks.notNull(scope, "scope");
        Checks.notNull(label, "label");
        return store.write(h -> archive(h, scope, label, keepBlock));
    }

    private ArchivalEntry archive(Handle h, Scope scope, String label, boolean keepBlock) {
        Row row = requireOwn(h, scope, label);
        Block block = row.block();
        if (block.value().isBlank()) {
            throw new IllegalArgumentException("block '" + label + "' is empty; there is nothing to archive");
        }
        Instant now = store.now();
        long micros = SqlTimes.toMicros(now);
        Optional<ArchivalEntry> existing = SqliteArchival.byLabel(h, scope, label);
        ArchivalEntry entry;
        if (existing.isPresent()) {
            h.createUpdate("UPDATE archival SET content = ?, updated_at = ? WHERE id = ?")
                    .bind(0, block.value()).bind(1, micros).bind(2, existing.get().id()).execute();
            entry = new ArchivalEntry(existing.get().id(), Optional.of(label), block.value(), existing.get().tags(),
                    existing.get().createdAt(), now);
        } else {
            entry = SqliteArchival.insert(h, scope, NewArchivalEntry.labelled(label, block.value(), List.of()), now);
        }
        SqliteMemoryStore.recordChange(h, ChangeEvent.Entity.ARCHIVAL, entry.id(), ChangeEvent.Op.UPSERT,
                scope.userId(), scope.agentId());
        if (!keepBlock) {
            deleteRow(h, scope.userId(), row);
        }
        return entry;
    }

    @Override
    public Block load(Scope scope, String archivalLabel, String blockLabel, int limit) {
        Checks.notNull(scope, "scope");
        Checks.notNull(archivalLabel, "archival label");
        Checks.id(blockLabel, "block label");
        return store.write(h -> load(h, scope, archivalLabel, blockLabel, limit));
    }

    private Block load(Handle h, Scope scope, String archivalLabel, String blockLabel, int limit) {
        ArchivalEntry entry = SqliteArchival.byLabel(h, scope, archivalLabel)
                .orElseThrow(() -> MemoryErrors.noArchivalLabel(archivalLabel));
        if (limit <= 0) {
            throw new IllegalArgumentException("block limit must be positive, got " + limit);
        }
        MemoryErrors.checkLimit(blockLabel, entry.content(), limit, 0);
        NewBlock block = NewBlock.builder(blockLabel)
                .description("Loaded from archival memory entry '" + archivalLabel + "'.")
                .value(entry.content()).limit(limit).type(BlockType.WORKING).build();
        Block created = insert(h, scope, block, "load");
        if (archivalLabel.equals(blockLabel)) {
            h.createUpdate("DELETE FROM archival WHERE id = ?").bind(0, entry.id()).execute();
            SqliteMemoryStore.recordChange(h, ChangeEvent.Entity.ARCHIVAL, entry.id(), ChangeEvent.Op.DELETE,
                    scope.userId(), scope.agentId());
        }
        return created;
    }

    @Override
    public Swap swap(Scope scope, String outLabel, String inLabel, int limit) {
        Checks.notNull(scope, "scope");
        Checks.notNull(outLabel, "label to archive");
        Checks.id(inLabel, "label to load");
        return store.write(h -> {
            ArchivalEntry archived = archive(h, scope, outLabel, false);
            Block loaded = load(h, scope, inLabel, inLabel, limit);
            return new Swap(archived, loaded);
        });
    }

}
