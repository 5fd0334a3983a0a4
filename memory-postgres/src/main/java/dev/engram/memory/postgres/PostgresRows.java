package dev.engram.memory.postgres;

import dev.engram.memory.AgentRecord;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Block;
import dev.engram.memory.BlockType;
import dev.engram.memory.BlockVersion;
import dev.engram.memory.ChangeEvent;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MessageImage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.MessageRole;
import dev.engram.memory.Metadata;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Note;
import dev.engram.memory.Scope;
import dev.engram.memory.ToolOutcome;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.MessageImageRows;
import dev.engram.memory.spi.NewChange;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * {@link Rows} on one PostgreSQL connection, inside the transaction (or read) {@link PostgresBackend} opened; in a write
 * transaction, {@code ahead} holds the statements that go with the next one ({@link Ahead}), else it is null.
 */
record PostgresRows(Handle h, Ahead ahead) implements PostgresOptionalRows, PostgresRunRows, PostgresWorkRows, PostgresCanvasRows, PostgresJobRows,
        PostgresFolderRows, PostgresArchiveRows, PostgresGroupRows, PostgresCountRows {
    /** The block of (owner user, owner agent, label), as a sub-select. */
    private static final String BLOCK_ID = "(SELECT id FROM blocks WHERE user_id = ? AND agent_id = ? AND label = ?)";
    private static final String BLOCK_COLUMNS = "b.agent_id, b.label, b.description, b.value, b.char_limit, b.type, "
            + "b.pinned, b.version, b.created_at, b.updated_at";

    /** Rows of a read: nothing held back. */
    PostgresRows(Handle h) {
        this(h, null);
    }

    /** The handle, for a statement run on it by other means than these rows': what is held back is sent first. */
    @Override
    public Handle h() {
        if (ahead != null) {
            ahead.flush(h.getConnection());
        }
        return h;
    }

    /** A NULL of a given SQL type, for a column that is not text. */
    record Null(int sqlType) {
    }


    private static Block block(ResultSet rs) throws SQLException {
        return new Block(rs.getString("label"), rs.getString("description"), rs.getString("value"), rs.getInt("char_limit"),
                BlockType.valueOf(rs.getString("type")), MemoryPermission.valueOf(rs.getString("effective")),
                rs.getBoolean("pinned"), rs.getLong("version"), rs.getString("agent_id"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")));
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

    /** A time that may be absent, bound as a BIGINT or a NULL of that type. */
    private static Object micros(Optional<Instant> time) {
        return time.<Object>map(Columns::micros).orElse(new Null(Types.BIGINT));
    }

    private static Note note(ResultSet rs) throws SQLException {
        return new Note(rs.getString("id"), rs.getString("user_id"), rs.getString("content"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")),
                Metadata.parse(rs.getString("metadata")), validTo(rs), Optional.ofNullable(rs.getString("supersedes")));
    }

    private static ConversationMessage message(ResultSet rs) throws SQLException {
        return new ConversationMessage(rs.getLong("id"), rs.getString("agent_id"), rs.getString("user_id"),
                rs.getString("session_id"), MessageRole.valueOf(rs.getString("role")), rs.getString("content"),
                Columns.toolCalls(rs.getString("tool_calls")),
                Optional.ofNullable(rs.getString("tool_call_id")), Columns.instant(rs.getLong("created_at")), rs.getBoolean("in_context"),
                Columns.toolOutcome(rs.getString("tool_status"), rs.getString("tool_effects")), List.of(),
                Columns.reasoning(rs.getString("reasoning"), rs.getString("reasoning_signature"), rs.getString("reasoning_redacted")));
    }

    private static AgentRecord agent(ResultSet rs) throws SQLException {
        return new AgentRecord(Scope.of(rs.getString("user_id"), rs.getString("agent_id")), rs.getString("name"),
                rs.getString("definition"), Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")));
    }

    /**
     * Runs an update on the handle's connection ({@link Statements}: positional arguments bound by type), with what is held
     * back in front of it.
     */
    @Override
    public int exec(String sql, Object... args) {
        return Statements.exec(h.getConnection(), ahead, sql, args);
    }

    /** Runs a query on the handle's connection ({@link Statements}). */
    @Override
    public <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) {
        return Statements.query(h.getConnection(), ahead, sql, mapper, args);
    }

    @Override
    public <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args) {
        return query(sql, mapper, args).stream().findFirst();
    }

    @Override
    public List<Block> blocks(Scope v) {
        return query("SELECT " + BLOCK_COLUMNS + ", b.permission AS effective FROM blocks b WHERE b.user_id = ? AND b.agent_id = ? "
                + "UNION ALL SELECT " + BLOCK_COLUMNS + ", s.permission FROM blocks b JOIN block_shares s ON s.block_id = b.id "
                + "WHERE s.user_id = ? AND s.agent_id = ?", (rs, c) -> block(rs), v.userId(), v.agentId(), v.userId(), v.agentId());
    }

    @Override
    public void insertBlock(Scope o, Block b) {
        exec("INSERT INTO blocks (user_id, agent_id, label, description, value, char_limit, type, permission, pinned, "
                + "version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", o.userId(), o.agentId(),
                b.label(), b.description(), b.value(), b.limit(), b.type().name(), b.permission().name(), b.pinned(),
                b.version(), Columns.micros(b.createdAt()), Columns.micros(b.updatedAt()));
    }

    @Override
    public boolean updateBlock(Scope o, Block b, long expected) {
        return exec("UPDATE blocks SET value = ?, description = ?, char_limit = ?, permission = ?, version = ?, updated_at = ? "
                + "WHERE user_id = ? AND agent_id = ? AND label = ? AND version = ?", b.value(), b.description(), b.limit(),
                b.permission().name(), b.version(), Columns.micros(b.updatedAt()), o.userId(), o.agentId(), b.label(),
                expected) == 1;
    }

    @Override
    public void deleteBlock(Scope o, String label) {
        exec("DELETE FROM blocks WHERE user_id = ? AND agent_id = ? AND label = ?", o.userId(), o.agentId(), label);
    }

    @Override
    public void insertBlockVersion(Scope o, String label, BlockVersion v) {
        exec("INSERT INTO block_versions (block_id, version, value, operation, committed_at) VALUES (" + BLOCK_ID
                + ", ?, ?, ?, ?)", o.userId(), o.agentId(), label, v.version(), v.value(), v.operation(), Columns.micros(v.committedAt()));
    }

    @Override
    public List<BlockVersion> blockVersions(Scope o, String label) {
        return query("SELECT * FROM block_versions WHERE block_id = " + BLOCK_ID + " ORDER BY version",
                (rs, c) -> new BlockVersion(rs.getLong("version"), rs.getString("value"), rs.getString("operation"),
                        Columns.instant(rs.getLong("committed_at"))), o.userId(), o.agentId(), label);
    }

    @Override
    public void putShare(Scope o, String label, String agentId, MemoryPermission p) {
        exec("INSERT INTO block_shares (block_id, user_id, agent_id, permission) VALUES (" + BLOCK_ID + ", ?, ?, ?) "
                + "ON CONFLICT (block_id, agent_id) DO UPDATE SET permission = excluded.permission",
                o.userId(), o.agentId(), label, o.userId(), agentId, p.name());
    }

    @Override
    public boolean deleteShare(Scope o, String label, String agentId) {
        return exec("DELETE FROM block_shares WHERE block_id = " + BLOCK_ID + " AND agent_id = ?",
                o.userId(), o.agentId(), label, agentId) > 0;
    }

    @Override
    public void putArchival(Scope s, List<ArchivalEntry> entries) {
        for (ArchivalEntry e : entries) {
            exec("INSERT INTO archival (id, user_id, agent_id, label, content, tags, created_at, updated_at, metadata, "
                    + "valid_to, supersedes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                    + "label = excluded.label, content = excluded.content, tags = excluded.tags, updated_at = excluded.updated_at, "
                    + "metadata = excluded.metadata, valid_to = excluded.valid_to, supersedes = excluded.supersedes",
                    e.id(), s.userId(), s.agentId(), e.label().orElse(null), e.content(),
                    Columns.tagsJson(e.tags()), Columns.micros(e.createdAt()), Columns.micros(e.updatedAt()),
                    e.metadata().json(), micros(e.validTo()), e.supersedes().orElse(null));
        }
    }

    @Override
    public boolean deleteArchival(Scope s, String id) {
        return exec("DELETE FROM archival WHERE id = ? AND user_id = ? AND agent_id = ?", id, s.userId(), s.agentId()) > 0;
    }

    @Override
    public Optional<ArchivalEntry> archival(Scope s, String id) {
        return one("SELECT * FROM archival WHERE id = ? AND user_id = ? AND agent_id = ?",
                (rs, c) -> archival(rs), id, s.userId(), s.agentId());
    }

    @Override
    public Optional<ArchivalEntry> archivalByLabel(Scope s, String label) {
        return one("SELECT * FROM archival WHERE user_id = ? AND agent_id = ? AND label = ?",
                (rs, c) -> archival(rs), s.userId(), s.agentId(), label);
    }

    @Override
    public List<ArchivalEntry> listArchival(Scope s, int offset, int limit) {
        return query("SELECT * FROM archival WHERE user_id = ? AND agent_id = ? AND valid_to IS NULL ORDER BY created_at DESC, pos DESC "
                + "LIMIT ? OFFSET ?", (rs, c) -> archival(rs), s.userId(), s.agentId(), limit, offset);
    }

    @Override
    public void putNote(Note n) {
        exec("INSERT INTO notes (id, user_id, content, created_at, updated_at, metadata, valid_to, supersedes) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET content = excluded.content, "
                + "updated_at = excluded.updated_at, metadata = excluded.metadata, valid_to = excluded.valid_to, "
                + "supersedes = excluded.supersedes",
                n.id(), n.userId(), n.content(), Columns.micros(n.createdAt()), Columns.micros(n.updatedAt()),
                n.metadata().json(), micros(n.validTo()), n.supersedes().orElse(null));
    }

    @Override
    public boolean deleteNote(String userId, String noteId) {
        return exec("DELETE FROM notes WHERE id = ? AND user_id = ?", noteId, userId) > 0;
    }

    @Override
    public Optional<Note> note(String userId, String noteId) {
        return one("SELECT * FROM notes WHERE id = ? AND user_id = ?", (rs, c) -> note(rs), noteId, userId);
    }

    @Override
    public List<Note> listNotes(String userId, int offset, int limit) {
        return query("SELECT * FROM notes WHERE user_id = ? AND valid_to IS NULL ORDER BY created_at DESC, pos DESC LIMIT ? OFFSET ?",
                (rs, c) -> note(rs), userId, limit, offset);
    }

    @Override
    public Optional<Note> noteSuperseding(String userId, String noteId) {
        return one("SELECT * FROM notes WHERE supersedes = ? AND user_id = ?", (rs, c) -> note(rs), noteId, userId);
    }

    @Override
    public Optional<ArchivalEntry> archivalSuperseding(Scope s, String id) {
        return one("SELECT * FROM archival WHERE supersedes = ? AND user_id = ? AND agent_id = ?",
                (rs, c) -> archival(rs), id, s.userId(), s.agentId());
    }

    @Override
    public long countNotes(String userId) {
        return one("SELECT count(*) FROM notes WHERE user_id = ? AND valid_to IS NULL", (rs, c) -> rs.getLong(1), userId).orElseThrow();
    }

    /** Messages inserted by one statement at most (14 parameters each, far below PostgreSQL's 65,535). */
    static final int MESSAGES_PER_INSERT = 200;

    /**
     * Inserts the messages in order, up to {@value #MESSAGES_PER_INSERT} in one multi-row statement (one round trip for
     * a step's results): their ids are taken in the order of the rows, so the rows returned are put back in that order.
     */
    @Override
    public List<ConversationMessage> insertMessages(Scope s, List<NewMessage> messages, Instant at) {
        List<ConversationMessage> out = new ArrayList<>(messages.size());
        for (int from = 0; from < messages.size(); from += MESSAGES_PER_INSERT) {
            List<NewMessage> part = messages.subList(from, Math.min(messages.size(), from + MESSAGES_PER_INSERT));
            StringBuilder sql = new StringBuilder("INSERT INTO messages (user_id, agent_id, session_id, role, content, "
                    + "tool_calls, tool_call_id, created_at, in_context, tool_status, tool_effects, reasoning, reasoning_signature, "
                    + "reasoning_redacted) VALUES ");
            List<Object> args = new ArrayList<>(part.size() * 13);
            for (NewMessage m : part) {
                sql.append(args.isEmpty() ? "" : ", ").append("(?, ?, ?, ?, ?, ?, ?, ?, TRUE, ?, ?, ?, ?, ?)");
                Collections.addAll(args, s.userId(), s.agentId(), m.sessionId(), m.role().name(), m.content(),
                        Columns.toolCallsJson(m.toolCalls()), m.toolCallId().orElse(null), Columns.micros(at),
                        m.toolOutcome().map(o -> o.status().code()).orElse(null),
                        m.toolOutcome().map(ToolOutcome::effectCodes).orElse(null), m.reasoning().text(),
                        m.reasoning().signature(), Columns.redactedJson(m.reasoning()));
            }
            List<ConversationMessage> inserted = new ArrayList<>(query(sql.append(" RETURNING *").toString(),
                    (rs, c) -> message(rs), args.toArray()));
            inserted.sort(Comparator.comparingLong(ConversationMessage::id));
            for (int i = 0; i < part.size(); i++) {
                List<MessageImage> images = part.get(i).images();
                MessageImageRows.insert(h(), s, inserted.get(i).id(), images);
                out.add(inserted.get(i).withImages(images));
            }
        }
        return out;
    }

    @Override
    public Optional<ConversationMessage> message(Scope s, long id) {
        return one("SELECT * FROM messages WHERE id = ? AND user_id = ? AND agent_id = ?",
                (rs, c) -> message(rs), id, s.userId(), s.agentId())
                .map(m -> MessageImageRows.attach(h(), s, List.of(m)).getFirst());
    }

    @Override
    public List<ConversationMessage> listMessages(Scope s, MessageQuery q) {
        // Absent filters become bounds that match everything; the newest N come out of a DESC sub-select.
        String where = "user_id = ? AND agent_id = ? AND (? IS NULL OR session_id = ?) AND id > ? AND id < ? "
                + "AND created_at >= ? AND created_at < ? AND (in_context OR NOT ?)";
        String sql = q.newestFirst()
                ? "SELECT * FROM (SELECT * FROM messages WHERE " + where + " ORDER BY id DESC LIMIT ?) m ORDER BY id"
                : "SELECT * FROM messages WHERE " + where + " ORDER BY id LIMIT ?";
        String session = q.sessionId().orElse(null);
        // the handle's field, not h(): the query (an argument) sends what is held, with itself
        return MessageImageRows.attach(h, s, query(sql, (rs, c) -> message(rs), s.userId(), s.agentId(), session, session,
                q.afterId().orElse(Long.MIN_VALUE), q.beforeId().orElse(Long.MAX_VALUE),
                q.from().map(t -> Columns.micros(t)).orElse(Long.MIN_VALUE), q.until().map(t -> Columns.micros(t)).orElse(Long.MAX_VALUE),
                q.inContextOnly(), q.limit()));
    }

    @Override
    public boolean updateMessageText(Scope s, long id, String content, List<MessageToolCall> toolCalls,
            MessageReasoning reasoning) {
        return exec("UPDATE messages SET content = ?, tool_calls = ?, reasoning = ?, reasoning_signature = ?, "
                + "reasoning_redacted = ? WHERE id = ? AND user_id = ? AND agent_id = ?", content,
                Columns.toolCallsJson(toolCalls), reasoning.text(), reasoning.signature(), Columns.redactedJson(reasoning),
                id, s.userId(), s.agentId()) == 1;
    }

    @Override
    public int markOutOfContext(Scope s, Collection<Long> ids) {
        return exec("UPDATE messages SET in_context = FALSE WHERE user_id = ? AND agent_id = ? AND in_context "
                + "AND id = ANY (?)", s.userId(), s.agentId(), ids.toArray(Long[]::new));
    }

    @Override
    public void putAgent(AgentRecord a) {
        exec("INSERT INTO agents (user_id, agent_id, name, definition, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (user_id, agent_id) DO UPDATE SET name = excluded.name, definition = excluded.definition, "
                + "updated_at = excluded.updated_at", a.scope().userId(), a.scope().agentId(), a.name(), a.definition(),
                Columns.micros(a.createdAt()), Columns.micros(a.updatedAt()));
    }

    @Override
    public Optional<AgentRecord> agent(Scope s) {
        return one("SELECT * FROM agents WHERE user_id = ? AND agent_id = ?", (rs, c) -> agent(rs),
                s.userId(), s.agentId());
    }

    @Override
    public List<AgentRecord> agentsByName(String userId, String name) {
        return query("SELECT * FROM agents WHERE user_id = ? AND name = ? ORDER BY created_at, agent_id", (rs, c) -> agent(rs),
                userId, name);
    }

    @Override
    public List<AgentRecord> listAgents(String userId) {
        return query("SELECT * FROM agents WHERE user_id = ? ORDER BY name", (rs, c) -> agent(rs), userId);
    }

    @Override
    public boolean deleteAgent(Scope s) {
        return exec("DELETE FROM agents WHERE user_id = ? AND agent_id = ?", s.userId(), s.agentId()) > 0;
    }

    @Override
    public void appendChanges(List<NewChange> changes) {
        for (NewChange c : changes) {
            exec("INSERT INTO changes (entity, entity_id, op, user_id, agent_id) VALUES (?, ?, ?, ?, ?)",
                    c.entity().name(), c.id(), c.op().name(), c.userId(), c.agentId().orElse(null));
        }
    }

    @Override
    public List<ChangeEvent> changesSince(long afterSeq, int max) {
        return query("SELECT * FROM changes WHERE seq > ? ORDER BY seq LIMIT ?", PostgresRows::change, afterSeq, max);
    }

    /** The user's events from the log's index by user (V26), {@code changes_user}: none of the other users' is read. */
    @Override
    public List<ChangeEvent> userChangesSince(String userId, long afterSeq, int max) {
        return query("SELECT * FROM changes WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT ?", PostgresRows::change,
                userId, afterSeq, max);
    }

    private static ChangeEvent change(ResultSet rs, StatementContext c) throws SQLException {
        return new ChangeEvent(rs.getLong("seq"), ChangeEvent.Entity.valueOf(rs.getString("entity")), rs.getString("entity_id"),
                ChangeEvent.Op.valueOf(rs.getString("op")), rs.getString("user_id"), Optional.ofNullable(rs.getString("agent_id")));
    }

    @Override
    public long lastChangeSeq() {
        return one("SELECT coalesce(max(seq), 0) FROM changes", (rs, c) -> rs.getLong(1)).orElseThrow();
    }

    @Override
    public String storeId() {
        return one("SELECT min(id) FROM store_identity", (rs, c) -> rs.getString(1)).orElseThrow();
    }
}
