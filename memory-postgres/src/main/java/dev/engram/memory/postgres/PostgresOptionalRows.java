package dev.engram.memory.postgres;

import dev.engram.memory.ApiKey;
import dev.engram.memory.Conversation;
import dev.engram.memory.CustomTool;
import dev.engram.memory.CustomToolSpec;
import dev.engram.memory.Metadata;
import dev.engram.memory.Identity;
import dev.engram.memory.McpServerRecord;
import dev.engram.memory.ProviderRecord;
import dev.engram.memory.Schedule;
import dev.engram.memory.Scope;
import dev.engram.memory.spi.Columns;
import dev.engram.memory.spi.Rows;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * The optional rows of {@link PostgresRows} (schedules, API keys, identities, conversations, providers, MCP servers and custom tools), over its three statement helpers,
 * as {@code SqliteOptionalRows} is for the SQLite store.
 */
interface PostgresOptionalRows extends Rows {
    /** Runs an update with positional arguments; returns the rows changed. */
    int exec(String sql, Object... args);

    /** Runs a query with positional arguments. */
    <T> List<T> query(String sql, RowMapper<T> mapper, Object... args);

    /** The first row of a query, if any. */
    <T> Optional<T> one(String sql, RowMapper<T> mapper, Object... args);

    /** Microseconds, or a BIGINT NULL. */
    private static Object micros(Optional<Instant> instant) {
        return instant.<Object>map(Columns::micros).orElse(new PostgresRows.Null(Types.BIGINT));
    }

    private static Optional<Instant> instant(ResultSet rs, String column) throws SQLException {
        long micros = rs.getLong(column);
        return rs.wasNull() ? Optional.empty() : Optional.of(Columns.instant(micros));
    }

    private static Schedule schedule(ResultSet rs) throws SQLException {
        return new Schedule(rs.getString("id"), Scope.of(rs.getString("user_id"), rs.getString("agent_id")),
                rs.getString("session_id"), rs.getString("message"), Columns.timing(rs.getString("timing")),
                Schedule.Status.valueOf(rs.getString("status")), instant(rs, "next_run_at"), instant(rs, "last_run_at"),
                rs.getInt("runs"), instant(rs, "claimed_until"), rs.getLong("version"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")));
    }

    @Override
    default void insertSchedule(Schedule s) {
        exec("INSERT INTO schedules (id, user_id, agent_id, session_id, message, timing, status, next_run_at, last_run_at, "
                + "runs, claimed_until, version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                s.id(), s.scope().userId(), s.scope().agentId(), s.sessionId(), s.message(), Columns.timingJson(s.timing()),
                s.status().name(), micros(s.nextRunAt()), micros(s.lastRunAt()), s.runs(), micros(s.claimedUntil()),
                s.version(), Columns.micros(s.createdAt()), Columns.micros(s.updatedAt()));
    }

    @Override
    default Optional<Schedule> schedule(String userId, String id) {
        return one("SELECT * FROM schedules WHERE user_id = ? AND id = ?", (rs, c) -> schedule(rs), userId, id);
    }

    @Override
    default List<Schedule> listSchedules(String userId) {
        return query("SELECT * FROM schedules WHERE user_id = ? ORDER BY created_at, id",
                (rs, c) -> schedule(rs), userId);
    }

    @Override
    default List<Schedule> dueSchedules(Instant now, int max) {
        long at = Columns.micros(now);
        return query("SELECT * FROM schedules WHERE status = 'ACTIVE' AND next_run_at <= ? "
                + "AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY next_run_at, id LIMIT ?",
                (rs, c) -> schedule(rs), at, at, max);
    }

    @Override
    default boolean updateSchedule(Schedule s, long expectedVersion) {
        return exec("UPDATE schedules SET status = ?, next_run_at = ?, last_run_at = ?, runs = ?, claimed_until = ?, "
                + "version = ?, updated_at = ? WHERE user_id = ? AND id = ? AND version = ?", s.status().name(),
                micros(s.nextRunAt()), micros(s.lastRunAt()), s.runs(), micros(s.claimedUntil()), s.version(),
                Columns.micros(s.updatedAt()), s.scope().userId(), s.id(), expectedVersion) > 0;
    }

    private static ApiKey key(ResultSet rs) throws SQLException {
        return new ApiKey(rs.getString("id"), Optional.ofNullable(rs.getString("user_id")), rs.getString("name"),
                Columns.instant(rs.getLong("created_at")));
    }

    @Override
    default void insertKey(ApiKey k, String hash) {
        exec("INSERT INTO api_keys (id, user_id, name, key_hash, created_at) VALUES (?, ?, ?, ?, ?)", k.id(),
                k.userId().orElse(null), k.name(), hash, Columns.micros(k.createdAt()));
    }

    @Override
    default Optional<ApiKey> keyByHash(String hash) {
        return one("SELECT * FROM api_keys WHERE key_hash = ?", (rs, c) -> key(rs), hash);
    }

    @Override
    default List<ApiKey> listKeys() {
        return query("SELECT * FROM api_keys ORDER BY created_at, id", (rs, c) -> key(rs));
    }

    @Override
    default boolean deleteKey(String id) {
        return exec("DELETE FROM api_keys WHERE id = ?", id) > 0;
    }

    private static Identity identity(ResultSet rs) throws SQLException {
        return new Identity(rs.getString("user_id"), rs.getString("name"), rs.getString("type"),
                Columns.instant(rs.getLong("created_at")), rs.getString("properties"));
    }

    @Override
    default void putIdentity(Identity i) {
        exec("INSERT INTO identities (user_id, name, type, created_at, properties) VALUES (?, ?, ?, ?, ?) "
                + "ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, type = excluded.type, "
                + "properties = excluded.properties", i.userId(), i.name(), i.type(), Columns.micros(i.createdAt()),
                i.properties());
    }

    @Override
    default Optional<Identity> identity(String userId) {
        return one("SELECT * FROM identities WHERE user_id = ?", (rs, c) -> identity(rs), userId);
    }

    @Override
    default List<Identity> listIdentities() {
        return query("SELECT * FROM identities ORDER BY created_at, user_id", (rs, c) -> identity(rs));
    }

    @Override
    default boolean deleteIdentity(String userId) {
        return exec("DELETE FROM identities WHERE user_id = ?", userId) > 0;
    }

    private static Conversation conversation(ResultSet rs) throws SQLException {
        return new Conversation(rs.getString("id"), rs.getString("user_id"), rs.getString("agent_id"), rs.getString("summary"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")),
                Metadata.parse(rs.getString("metadata")));
    }

    @Override
    default void putConversation(Conversation c) {
        exec("INSERT INTO conversations (id, user_id, agent_id, summary, created_at, updated_at, metadata) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET summary = excluded.summary, "
                + "updated_at = excluded.updated_at, metadata = excluded.metadata", c.id(), c.userId(), c.agentId(),
                c.summary(), Columns.micros(c.createdAt()), Columns.micros(c.updatedAt()), c.metadata().json());
    }

    @Override
    default Optional<Conversation> conversation(String id) {
        return one("SELECT * FROM conversations WHERE id = ?", (rs, c) -> conversation(rs), id);
    }

    @Override
    default List<Conversation> listConversations(String userId) {
        return query("SELECT * FROM conversations WHERE user_id = ? ORDER BY created_at, id", (rs, c) -> conversation(rs), userId);
    }

    @Override
    default boolean deleteConversation(String id) {
        return exec("DELETE FROM conversations WHERE id = ?", id) > 0;
    }

    private static ProviderRecord providerRecord(ResultSet rs) throws SQLException {
        return new ProviderRecord(rs.getString("id"), rs.getString("name"), rs.getString("type"), rs.getString("base_url"),
                rs.getString("sealed_api_key"), Columns.instant(rs.getLong("created_at")),
                Columns.instant(rs.getLong("updated_at")));
    }

    @Override
    default void putProvider(ProviderRecord p) {
        exec("INSERT INTO providers (id, name, type, base_url, sealed_api_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (id) DO UPDATE SET base_url = excluded.base_url, sealed_api_key = excluded.sealed_api_key, "
                + "updated_at = excluded.updated_at", p.id(), p.name(), p.type(), p.baseUrl(), p.sealedApiKey(),
                Columns.micros(p.createdAt()), Columns.micros(p.updatedAt()));
    }

    @Override
    default Optional<ProviderRecord> provider(String id) {
        return one("SELECT * FROM providers WHERE id = ?", (rs, c) -> providerRecord(rs), id);
    }

    @Override
    default List<ProviderRecord> listProviders() {
        return query("SELECT * FROM providers ORDER BY created_at, id", (rs, c) -> providerRecord(rs));
    }

    @Override
    default boolean deleteProvider(String id) {
        return exec("DELETE FROM providers WHERE id = ?", id) > 0;
    }

    private static McpServerRecord mcpServerRecord(ResultSet rs) throws SQLException {
        return new McpServerRecord(rs.getString("id"), rs.getString("user_id"), rs.getString("name"), rs.getString("type"),
                rs.getString("config"), rs.getString("sealed_secrets"), rs.getString("tools"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")));
    }

    @Override
    default void putMcpServer(McpServerRecord s) {
        exec("INSERT INTO mcp_servers (id, user_id, name, type, config, sealed_secrets, tools, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT (id) DO UPDATE SET name = excluded.name, type = excluded.type, config = excluded.config, sealed_secrets = excluded.sealed_secrets, tools = excluded.tools, updated_at = excluded.updated_at", s.id(), s.userId(), s.name(), s.type(), s.config(), s.sealedSecrets(), s.tools(),
                Columns.micros(s.createdAt()), Columns.micros(s.updatedAt()));
    }

    @Override
    default Optional<McpServerRecord> mcpServer(String id) {
        return one("SELECT * FROM mcp_servers WHERE id = ?", (rs, c) -> mcpServerRecord(rs), id);
    }

    @Override
    default List<McpServerRecord> listMcpServers() {
        return query("SELECT * FROM mcp_servers ORDER BY created_at, id", (rs, c) -> mcpServerRecord(rs));
    }

    @Override
    default boolean deleteMcpServer(String id) {
        return exec("DELETE FROM mcp_servers WHERE id = ?", id) > 0;
    }

    private static CustomTool customToolRecord(ResultSet rs) throws SQLException {
        CustomToolSpec spec = new CustomToolSpec(rs.getString("name"), rs.getString("description"), rs.getString("source_type"),
                rs.getString("source_code"), rs.getString("json_schema"), rs.getString("args_json_schema"),
                Columns.tags(rs.getString("tags")), rs.getInt("return_char_limit"), rs.getString("pip_requirements"),
                rs.getString("npm_requirements"), rs.getBoolean("default_requires_approval"), rs.getString("metadata"));
        return new CustomTool(rs.getString("id"), rs.getString("user_id"), spec, Columns.instant(rs.getLong("created_at")),
                Columns.instant(rs.getLong("updated_at")));
    }

    @Override
    default void putCustomTool(CustomTool t) {
        CustomToolSpec s = t.spec();
        exec("INSERT INTO custom_tools (id, user_id, name, description, source_type, source_code, json_schema, args_json_schema, "
                + "tags, return_char_limit, pip_requirements, npm_requirements, default_requires_approval, metadata, created_at, "
                + "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = "
                + "excluded.name, description = excluded.description, source_type = excluded.source_type, source_code = "
                + "excluded.source_code, json_schema = excluded.json_schema, args_json_schema = excluded.args_json_schema, tags = "
                + "excluded.tags, return_char_limit = excluded.return_char_limit, pip_requirements = excluded.pip_requirements, "
                + "npm_requirements = excluded.npm_requirements, default_requires_approval = excluded.default_requires_approval, "
                + "metadata = excluded.metadata, updated_at = excluded.updated_at", t.id(), t.userId(), s.name(), s.description(),
                s.sourceType(), s.sourceCode(), s.jsonSchema(), s.argsJsonSchema(), Columns.tagsJson(s.tags()), s.returnCharLimit(),
                s.pipRequirements(), s.npmRequirements(), s.defaultRequiresApproval(), s.metadata(), Columns.micros(t.createdAt()),
                Columns.micros(t.updatedAt()));
    }

    @Override
    default Optional<CustomTool> customTool(String id) {
        return one("SELECT * FROM custom_tools WHERE id = ?", (rs, c) -> customToolRecord(rs), id);
    }

    @Override
    default List<CustomTool> listCustomTools(String userId) {
        return query("SELECT * FROM custom_tools WHERE user_id = ? ORDER BY created_at, id", (rs, c) -> customToolRecord(rs),
                userId);
    }

    @Override
    default boolean deleteCustomTool(String id) {
        return exec("DELETE FROM custom_tools WHERE id = ?", id) > 0;
    }
}
