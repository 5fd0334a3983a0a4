package dev.engram.memory.sqlite;

import dev.engram.memory.AgentRecord;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Block;
import dev.engram.memory.BlockType;
import dev.engram.memory.BlockVersion;
import dev.engram.memory.ChangeEvent;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemoryStats;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Metadata;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Note;
import dev.engram.memory.Scope;
import dev.engram.memory.ToolOutcome;
import dev.engram.memory.UserUsage;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.MessageImageRows;
import dev.engram.memory.spi.NewChange;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.jdbi.v3.core.statement.Query;

/** {@link Rows} on one SQLite connection, inside the transaction (or read) its backend opened. */
final class SqliteRows implements SqliteOptionalRows, SqliteRunRows, SqliteWorkRows, SqliteCanvasRows, SqliteJobRows,
        SqliteFolderRows, SqliteArchiveRows, SqliteGroupRows {
    private static final String BLOCK = "(SELECT id FROM blocks WHERE user_id = :u AND agent_id = :a AND label = :l)";
    private static final String COLUMNS = "b.agent_id, b.label, b.description, b.value, b.char_limit, b.type, "
            + "b.pinned, b.version, b.created_at, b.updated_at";

    private final Handle h;

    SqliteRows(Handle h) {
        this.h = h;
    }

    @Override
    public Handle handle() {
        return h;
    }

    /**
     * SQLite's {@code SAVEPOINT}: nested ones of the same name are allowed, and {@code ROLLBACK TO} undoes the innermost
     * while it stays open (so it is released after). Statements kept in the connection's cache hold no transaction
     * state, so they survive the undo.
     */
    @Override
    public boolean savepoint(BooleanSupplier work) {
        h.execute("SAVEPOINT engram_part");
        boolean keep;
        try {
            keep = work.getAsBoolean();
        } catch (RuntimeException | Error e) {
            undo();
            throw e;
        }
        if (keep) {
            h.execute("RELEASE engram_part");
        } else {
            undo();
        }
        return keep;
    }

    private void undo() {
        h.execute("ROLLBACK TO engram_part");
        h.execute("RELEASE engram_part");
    }

    String integrityCheck() {
        return h.createQuery("PRAGMA integrity_check").mapTo(String.class).one();
    }

    private static Block block(ResultSet rs) throws SQLException {
        return new Block(rs.getString("label"), rs.getString("description"), rs.getString("value"),
                rs.getInt("char_limit"), BlockType.valueOf(rs.getString("type")),
                MemoryPermission.valueOf(rs.getString("effective")), rs.getInt("pinned") != 0, rs.getLong("version"),
                rs.getString("agent_id"), Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")));
    }

    /** The blocks the viewer owns, then those shared with it (effective permission), filtered by {@code where}. */
    private static String visibleBlocks(String where) {
        return "SELECT " + COLUMNS + ", b.permission AS effective FROM blocks b WHERE b.user_id = :u AND b.agent_id = :a" + where
                + " UNION ALL SELECT " + COLUMNS + ", s.permission AS effective FROM blocks b JOIN block_shares s ON s.block_id = b.id "
                + "WHERE s.user_id = :u AND s.agent_id = :a AND b.user_id = :u" + where;
    }

    @Override
    public List<Block> blocks(Scope viewer) {
        return h.createQuery(visibleBlocks("")).bind("u", viewer.userId()).bind("a", viewer.agentId())
                .map((rs, ctx) -> block(rs)).list();
    }

    /** By label, through the (user, agent, label) index: the own block first, then a shared one. */
    @Override
    public Optional<Block> block(Scope viewer, String label) {
        return h.createQuery(visibleBlocks(" AND b.label = :l")).bind("u", viewer.userId()).bind("a", viewer.agentId())
                .bind("l", label).map((rs, ctx) -> block(rs)).findFirst();
    }

    @Override
    public void insertBlock(Scope owner, Block b) {
        h.createUpdate("""
                INSERT INTO blocks (user_id, agent_id, label, description, value, char_limit, type, permission, pinned,
                                    version, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""")
                .bind(0, owner.userId()).bind(1, owner.agentId()).bind(2, b.label()).bind(3, b.description())
                .bind(4, b.value()).bind(5, b.limit()).bind(6, b.type().name()).bind(7, b.permission().name())
                .bind(8, b.pinned() ? 1 : 0).bind(9, b.version()).bind(10, Columns.micros(b.createdAt()))
                .bind(11, Columns.micros(b.updatedAt())).execute();
    }

    @Override
    public boolean updateBlock(Scope owner, Block b, long expectedVersion) {
        return h.createUpdate("UPDATE blocks SET value = :v, description = :d, char_limit = :c, permission = :p, "
                        + "version = :n, updated_at = :t WHERE user_id = :u AND agent_id = :a AND label = :l AND version = :e")
                .bind("v", b.value()).bind("d", b.description()).bind("c", b.limit()).bind("p", b.permission().name())
                .bind("n", b.version()).bind("t", Columns.micros(b.updatedAt()))
                .bind("u", owner.userId()).bind("a", owner.agentId()).bind("l", b.label()).bind("e", expectedVersion)
                .execute() == 1;
    }

    @Override
    public void deleteBlock(Scope owner, String label) {
        // Versions and shares go with it (ON DELETE CASCADE).
        h.createUpdate("DELETE FROM blocks WHERE user_id = :u AND agent_id = :a AND label = :l")
                .bind("u", owner.userId()).bind("a", owner.agentId()).bind("l", label).execute();
    }

    @Override
    public void insertBlockVersion(Scope owner, String label, BlockVersion v) {
        h.createUpdate("INSERT INTO block_versions (block_id, version, value, operation, committed_at) "
                        + "SELECT id, :version, :value, :op, :at FROM blocks WHERE user_id = :u AND agent_id = :a AND label = :l")
                .bind("version", v.version()).bind("value", v.value()).bind("op", v.operation())
                .bind("at", Columns.micros(v.committedAt()))
                .bind("u", owner.userId()).bind("a", owner.agentId()).bind("l", label).execute();
    }

    @Override
    public List<BlockVersion> blockVersions(Scope owner, String label) {
        return h.createQuery("SELECT version, value, operation, committed_at FROM block_versions "
                        + "WHERE block_id = " + BLOCK + " ORDER BY version")
                .bind("u", owner.userId()).bind("a", owner.agentId()).bind("l", label)
                .map((rs, ctx) -> new BlockVersion(rs.getLong("version"), rs.getString("value"), rs.getString("operation"),
                        Columns.instant(rs.getLong("committed_at"))))
                .list();
    }

    @Override
    public void putShare(Scope owner, String label, String agentId, MemoryPermission permission) {
        h.createUpdate("INSERT INTO block_shares (block_id, user_id, agent_id, permission, created_at) "
                        + "SELECT id, :u, :target, :p, :t FROM blocks WHERE user_id = :u AND agent_id = :a AND label = :l "
                        + "ON CONFLICT (block_id, agent_id) DO UPDATE SET permission = excluded.permission")
                .bind("target", agentId).bind("p", permission.name()).bind("t", Columns.micros(Instant.now()))
                .bind("u", owner.userId()).bind("a", owner.agentId()).bind("l", label).execute();
    }

    @Override
    public boolean deleteShare(Scope owner, String label, String agentId) {
        return h.createUpdate("DELETE FROM block_shares WHERE agent_id = :target AND block_id = " + BLOCK)
                .bind("target", agentId).bind("u", owner.userId()).bind("a", owner.agentId()).bind("l", label)
                .execute() > 0;
    }

    @Override
    public List<String> shareTargets(Scope owner, String label) {
        return h.createQuery("SELECT agent_id FROM block_shares WHERE block_id = " + BLOCK + " ORDER BY agent_id")
                .bind("u", owner.userId()).bind("a", owner.agentId()).bind("l", label).mapTo(String.class).list();
    }

    @Override
    public void renameBlock(Scope owner, String from, String to) {
        // Versions and shares refer to the block's id: they follow.
        h.createUpdate("UPDATE blocks SET label = :to WHERE user_id = :u AND agent_id = :a AND label = :l")
                .bind("to", to).bind("u", owner.userId()).bind("a", owner.agentId()).bind("l", from).execute();
    }

    private static ArchivalEntry archival(ResultSet rs) throws SQLException {
        return new ArchivalEntry(rs.getString("id"), Optional.ofNullable(rs.getString("label")), rs.getString("content"),
                Columns.tags(rs.getString("tags")), Columns.instant(rs.getLong("created_at")),
                Columns.instant(rs.getLong("updated_at")), Metadata.parse(rs.getString("metadata")), validTo(rs),
                Optional.ofNullable(rs.getString("supersedes")));
    }

    private static Optional<Instant> validTo(ResultSet rs) throws SQLException {
        long micros = rs.getLong("valid_to");
        return rs.wasNull() ? Optional.empty() : Optional.of(Columns.instant(micros));
    }

    @Override
    public void putArchival(Scope scope, List<ArchivalEntry> entries) {
        // One prepared statement for the whole batch.
        PreparedBatch batch = h.prepareBatch("""
                INSERT INTO archival (id, user_id, agent_id, label, content, tags, created_at, updated_at, metadata, valid_to,
                                      supersedes)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET label = excluded.label, content = excluded.content, tags = excluded.tags,
                                               updated_at = excluded.updated_at, metadata = excluded.metadata,
                                               valid_to = excluded.valid_to, supersedes = excluded.supersedes""");
        for (ArchivalEntry e : entries) {
            batch.bind(0, e.id()).bind(1, scope.userId()).bind(2, scope.agentId()).bind(3, e.label().orElse(null))
                    .bind(4, e.content()).bind(5, Columns.tagsJson(e.tags())).bind(6, Columns.micros(e.createdAt()))
                    .bind(7, Columns.micros(e.updatedAt())).bind(8, e.metadata().json()).bind(9, Columns.micros(e.validTo()))
                    .bind(10, e.supersedes().orElse(null)).add();
        }
        batch.execute();
    }

    @Override
    public boolean deleteArchival(Scope scope, String id) {
        return h.createUpdate("DELETE FROM archival WHERE id = ? AND user_id = ? AND agent_id = ?")
                .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).execute() > 0;
    }

    @Override
    public Optional<ArchivalEntry> archival(Scope scope, String id) {
        return h.createQuery("SELECT * FROM archival WHERE id = ? AND user_id = ? AND agent_id = ?")
                .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).map((rs, ctx) -> archival(rs)).findOne();
    }

    @Override
    public Optional<ArchivalEntry> archivalByLabel(Scope scope, String label) {
        return h.createQuery("SELECT * FROM archival WHERE user_id = ? AND agent_id = ? AND label = ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, label).map((rs, ctx) -> archival(rs)).findOne();
    }

    @Override
    public List<ArchivalEntry> listArchival(Scope scope, int offset, int limit) {
        return h.createQuery("SELECT * FROM archival WHERE user_id = ? AND agent_id = ? AND valid_to IS NULL "
                        + "ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, limit).bind(3, offset)
                .map((rs, ctx) -> archival(rs)).list();
    }

    private static Note note(ResultSet rs) throws SQLException {
        return new Note(rs.getString("id"), rs.getString("user_id"), rs.getString("content"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")),
                Metadata.parse(rs.getString("metadata")), validTo(rs), Optional.ofNullable(rs.getString("supersedes")));
    }

    @Override
    public void putNote(Note n) {
        h.createUpdate("INSERT INTO notes (id, user_id, content, created_at, updated_at, metadata, valid_to, supersedes) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET content = excluded.content, "
                        + "updated_at = excluded.updated_at, metadata = excluded.metadata, valid_to = excluded.valid_to, "
                        + "supersedes = excluded.supersedes")
                .bind(0, n.id()).bind(1, n.userId()).bind(2, n.content()).bind(3, Columns.micros(n.createdAt()))
                .bind(4, Columns.micros(n.updatedAt())).bind(5, n.metadata().json()).bind(6, Columns.micros(n.validTo()))
                .bind(7, n.supersedes().orElse(null)).execute();
    }

    @Override
    public boolean deleteNote(String userId, String noteId) {
        return h.createUpdate("DELETE FROM notes WHERE id = ? AND user_id = ?").bind(0, noteId).bind(1, userId).execute() > 0;
    }

    @Override
    public Optional<Note> note(String userId, String noteId) {
        return h.createQuery("SELECT * FROM notes WHERE id = ? AND user_id = ?")
                .bind(0, noteId).bind(1, userId).map((rs, ctx) -> note(rs)).findOne();
    }

    @Override
    public List<Note> listNotes(String userId, int offset, int limit) {
        return h.createQuery("SELECT * FROM notes WHERE user_id = ? AND valid_to IS NULL ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?")
                .bind(0, userId).bind(1, limit).bind(2, offset).map((rs, ctx) -> note(rs)).list();
    }

    @Override
    public Optional<Note> noteSuperseding(String userId, String noteId) {
        return h.createQuery("SELECT * FROM notes WHERE supersedes = ? AND user_id = ?")
                .bind(0, noteId).bind(1, userId).map((rs, ctx) -> note(rs)).findOne();
    }

    @Override
    public Optional<ArchivalEntry> archivalSuperseding(Scope scope, String id) {
        return h.createQuery("SELECT * FROM archival WHERE supersedes = ? AND user_id = ? AND agent_id = ?")
                .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).map((rs, ctx) -> archival(rs)).findOne();
    }

    @Override
    public long countNotes(String userId) {
        return h.createQuery("SELECT count(*) FROM notes WHERE user_id = ? AND valid_to IS NULL").bind(0, userId).mapTo(Long.class).one();
    }

    private static ConversationMessage message(ResultSet rs) throws SQLException {
        return new ConversationMessage(rs.getLong("id"), rs.getString("agent_id"), rs.getString("user_id"),
                rs.getString("session_id"), MessageRole.valueOf(rs.getString("role")), rs.getString("content"),
                Columns.toolCalls(rs.getString("tool_calls")), Optional.ofNullable(rs.getString("tool_call_id")),
                Columns.instant(rs.getLong("created_at")), rs.getInt("in_context") != 0,
                Columns.toolOutcome(rs.getString("tool_status"), rs.getString("tool_effects")), List.of(),
                Columns.reasoning(rs.getString("reasoning"), rs.getString("reasoning_signature"), rs.getString("reasoning_redacted")));
    }

    @Override
    public List<ConversationMessage> insertMessages(Scope scope, List<NewMessage> messages, Instant at) {
        List<ConversationMessage> out = new ArrayList<>(messages.size());
        for (NewMessage m : messages) {
            long id = h.createQuery("""
                    INSERT INTO messages (user_id, agent_id, session_id, role, content, tool_calls, tool_call_id,
                                          created_at, in_context, tool_status, tool_effects, reasoning,
                                          reasoning_signature, reasoning_redacted)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?) RETURNING id""")
                    .bind(0, scope.userId()).bind(1, scope.agentId()).bind(2, m.sessionId()).bind(3, m.role().name())
                    .bind(4, m.content()).bind(5, Columns.toolCallsJson(m.toolCalls()))
                    .bind(6, m.toolCallId().orElse(null)).bind(7, Columns.micros(at))
                    .bind(8, m.toolOutcome().map(o -> o.status().code()).orElse(null))
                    .bind(9, m.toolOutcome().map(ToolOutcome::effectCodes).orElse(null))
                    .bind(10, m.reasoning().text()).bind(11, m.reasoning().signature())
                    .bind(12, Columns.redactedJson(m.reasoning())).mapTo(Long.class).one();
            MessageImageRows.insert(h, scope, id, m.images());
            out.add(new ConversationMessage(id, scope.agentId(), scope.userId(), m.sessionId(), m.role(), m.content(),
                    m.toolCalls(), m.toolCallId(), at, true, m.toolOutcome(), m.images(), m.reasoning()));
        }
        return out;
    }

    @Override
    public Optional<ConversationMessage> message(Scope scope, long id) {
        return h.createQuery("SELECT * FROM messages WHERE id = ? AND user_id = ? AND agent_id = ?")
                .bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).map((rs, ctx) -> message(rs)).findOne()
                .map(m -> MessageImageRows.attach(h, scope, List.of(m)).getFirst());
    }

    @Override
    public List<ConversationMessage> listMessages(Scope scope, MessageQuery q) {
        StringBuilder sql = new StringBuilder("SELECT * FROM messages WHERE user_id = :u AND agent_id = :a");
        q.sessionId().ifPresent(s -> sql.append(" AND session_id = :s"));
        q.afterId().ifPresent(s -> sql.append(" AND id > :after"));
        q.beforeId().ifPresent(s -> sql.append(" AND id < :before"));
        q.from().ifPresent(s -> sql.append(" AND created_at >= :from"));
        q.until().ifPresent(s -> sql.append(" AND created_at < :until"));
        if (q.inContextOnly()) {
            sql.append(" AND in_context = 1");
        }
        sql.append(q.newestFirst() ? " ORDER BY id DESC" : " ORDER BY id").append(" LIMIT :limit");
        Query query = h.createQuery(sql.toString()).bind("u", scope.userId()).bind("a", scope.agentId())
                .bind("limit", q.limit());
        q.sessionId().ifPresent(s -> query.bind("s", s));
        q.afterId().ifPresent(s -> query.bind("after", s));
        q.beforeId().ifPresent(s -> query.bind("before", s));
        q.from().ifPresent(s -> query.bind("from", Columns.micros(s)));
        q.until().ifPresent(s -> query.bind("until", Columns.micros(s)));
        List<ConversationMessage> result = new ArrayList<>(query.map((rs, ctx) -> message(rs)).list());
        if (q.newestFirst()) {
            Collections.reverse(result);
        }
        return MessageImageRows.attach(h, scope, result);
    }

    @Override
    public boolean updateMessageText(Scope scope, long id, String content, List<MessageToolCall> toolCalls,
            MessageReasoning reasoning) {
        return h.createUpdate("UPDATE messages SET content = :c, tool_calls = :t, reasoning = :r, reasoning_signature = :s, "
                        + "reasoning_redacted = :d WHERE id = :id AND user_id = :u AND agent_id = :a")
                .bind("c", content).bind("t", Columns.toolCallsJson(toolCalls)).bind("r", reasoning.text())
                .bind("s", reasoning.signature()).bind("d", Columns.redactedJson(reasoning)).bind("id", id)
                .bind("u", scope.userId()).bind("a", scope.agentId()).execute() == 1;
    }

    @Override
    public int markOutOfContext(Scope scope, Collection<Long> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        // one statement prepared once for every id (a compaction takes a hundred or more out at once)
        PreparedBatch batch = h.prepareBatch("UPDATE messages SET in_context = 0 "
                + "WHERE id = ? AND user_id = ? AND agent_id = ? AND in_context = 1");
        for (Long id : ids) {
            batch.bind(0, id).bind(1, scope.userId()).bind(2, scope.agentId()).add();
        }
        int changed = 0;
        for (int n : batch.execute()) {
            changed += n;
        }
        return changed;
    }

    private static AgentRecord agent(ResultSet rs) throws SQLException {
        return new AgentRecord(Scope.of(rs.getString("user_id"), rs.getString("agent_id")), rs.getString("name"),
                rs.getString("definition"), Columns.instant(rs.getLong("created_at")),
                Columns.instant(rs.getLong("updated_at")));
    }

    @Override
    public void putAgent(AgentRecord a) {
        h.createUpdate("INSERT INTO agents (user_id, agent_id, name, definition, created_at, updated_at) "
                        + "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, agent_id) DO UPDATE SET name = excluded.name, "
                        + "definition = excluded.definition, updated_at = excluded.updated_at")
                .bind(0, a.scope().userId()).bind(1, a.scope().agentId()).bind(2, a.name()).bind(3, a.definition())
                .bind(4, Columns.micros(a.createdAt())).bind(5, Columns.micros(a.updatedAt())).execute();
    }

    @Override
    public Optional<AgentRecord> agent(Scope scope) {
        return h.createQuery("SELECT * FROM agents WHERE user_id = ? AND agent_id = ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).map((rs, ctx) -> agent(rs)).findOne();
    }

    @Override
    public List<AgentRecord> agentsByName(String userId, String name) {
        return h.createQuery("SELECT * FROM agents WHERE user_id = ? AND name = ? ORDER BY created_at, agent_id")
                .bind(0, userId).bind(1, name).map((rs, ctx) -> agent(rs)).list();
    }

    @Override
    public List<AgentRecord> listAgents(String userId) {
        return h.createQuery("SELECT * FROM agents WHERE user_id = ? ORDER BY name")
                .bind(0, userId).map((rs, ctx) -> agent(rs)).list();
    }

    @Override
    public boolean deleteAgent(Scope scope) {
        return h.createUpdate("DELETE FROM agents WHERE user_id = ? AND agent_id = ?")
                .bind(0, scope.userId()).bind(1, scope.agentId()).execute() > 0;
    }

    @Override
    public void appendChanges(List<NewChange> changes) {
        PreparedBatch batch = h.prepareBatch("INSERT INTO changes (entity, entity_id, op, user_id, agent_id) VALUES (?, ?, ?, ?, ?)");
        for (NewChange c : changes) {
            batch.bind(0, c.entity().name()).bind(1, c.id()).bind(2, c.op().name()).bind(3, c.userId())
                    .bind(4, c.agentId().orElse(null)).add();
        }
        batch.execute();
    }

    @Override
    public List<ChangeEvent> changesSince(long afterSeq, int max) {
        return h.createQuery("SELECT seq, entity, entity_id, op, user_id, agent_id FROM changes WHERE seq > ? ORDER BY seq LIMIT ?")
                .bind(0, afterSeq).bind(1, max)
                .map((rs, ctx) -> new ChangeEvent(rs.getLong("seq"), ChangeEvent.Entity.valueOf(rs.getString("entity")),
                        rs.getString("entity_id"), ChangeEvent.Op.valueOf(rs.getString("op")), rs.getString("user_id"),
                        Optional.ofNullable(rs.getString("agent_id"))))
                .list();
    }

    /** The user's events: a range of the log's key, as {@link #changesSince}, filtered by user (no index by user). */
    @Override
    public List<ChangeEvent> userChangesSince(String userId, long afterSeq, int max) {
        return h.createQuery("SELECT seq, entity, entity_id, op, user_id, agent_id FROM changes WHERE seq > ? AND user_id = ? "
                        + "ORDER BY seq LIMIT ?")
                .bind(0, afterSeq).bind(1, userId).bind(2, max)
                .map((rs, ctx) -> new ChangeEvent(rs.getLong("seq"), ChangeEvent.Entity.valueOf(rs.getString("entity")),
                        rs.getString("entity_id"), ChangeEvent.Op.valueOf(rs.getString("op")), rs.getString("user_id"),
                        Optional.ofNullable(rs.getString("agent_id"))))
                .list();
    }

    @Override
    public long lastChangeSeq() {
        return h.createQuery("SELECT coalesce(max(seq), 0) FROM changes").mapTo(Long.class).one();
    }

    @Override
    public String storeId() {
        return h.createQuery("SELECT min(id) FROM store_identity").mapTo(String.class).one();
    }

    @Override
    public UserUsage usage(String userId) {
        // octet_length reads a text's size from its record header, without loading the text.
        return h.createQuery("""
                SELECT (SELECT count(*) FROM agents WHERE user_id = :u) AS agents,
                       (SELECT count(*) FROM blocks WHERE user_id = :u) AS blocks,
                       (SELECT count(*) FROM archival WHERE user_id = :u) AS archival,
                       (SELECT count(*) FROM notes WHERE user_id = :u) AS notes,
                       coalesce((SELECT sum(octet_length(value)) FROM blocks WHERE user_id = :u), 0)
                     + coalesce((SELECT sum(octet_length(content)) FROM archival WHERE user_id = :u), 0)
                     + coalesce((SELECT sum(octet_length(content)) FROM notes WHERE user_id = :u), 0)
                     + coalesce((SELECT sum(octet_length(text)) FROM files WHERE user_id = :u), 0) AS bytes""")
                .bind("u", userId)
                .map((rs, ctx) -> new UserUsage(rs.getLong("agents"), rs.getLong("blocks"), rs.getLong("archival"),
                        rs.getLong("notes"), rs.getLong("bytes")))
                .one();
    }

    @Override
    public MemoryStats stats(Scope scope) {
        return h.createQuery("""
                SELECT (SELECT count(*) FROM blocks WHERE user_id = :u AND agent_id = :a)
                     + (SELECT count(*) FROM block_shares WHERE user_id = :u AND agent_id = :a) AS blocks,
                       (SELECT count(*) FROM archival WHERE user_id = :u AND agent_id = :a AND valid_to IS NULL) AS archival,
                       (SELECT count(*) FROM notes WHERE user_id = :u AND valid_to IS NULL) AS notes,
                       coalesce((SELECT total FROM message_counts WHERE user_id = :u AND agent_id = :a), 0) AS total,
                       coalesce((SELECT in_context FROM message_counts WHERE user_id = :u AND agent_id = :a), 0) AS in_context,
                       (SELECT max(created_at) FROM messages WHERE user_id = :u AND agent_id = :a) AS last_at,
                       (SELECT min(id) FROM messages WHERE user_id = :u AND agent_id = :a AND in_context = 1) AS first_in""")
                .bind("u", scope.userId()).bind("a", scope.agentId())
                .map((rs, ctx) -> {
                    long last = rs.getLong("last_at");
                    Optional<Instant> lastAt = rs.wasNull() ? Optional.empty() : Optional.of(Columns.instant(last));
                    long first = rs.getLong("first_in");
                    OptionalLong firstIn = rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(first);
                    return new MemoryStats(rs.getLong("blocks"), rs.getLong("archival"), rs.getLong("notes"),
                            rs.getLong("total"), rs.getLong("in_context"), lastAt, firstIn);
                }).one();
    }
}
