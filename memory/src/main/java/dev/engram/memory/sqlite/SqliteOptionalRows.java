package dev.engram.memory.sqlite;

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
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jdbi.v3.core.Handle;

/** The optional rows of {@link SqliteRows} (schedules, API keys, identities, conversations, providers, MCP servers and custom tools), on the handle of its transaction. */
interface SqliteOptionalRows extends Rows {
    /** The handle of the transaction (or read) the rows work in. */
    Handle handle();

    private static Schedule schedule(ResultSet rs) throws SQLException {
        return new Schedule(rs.getString("id"), Scope.of(rs.getString("user_id"), rs.getString("agent_id")),
                rs.getString("session_id"), rs.getString("message"), Columns.timing(rs.getString("timing")),
                Schedule.Status.valueOf(rs.getString("status")), optionalInstant(rs, "next_run_at"),
                optionalInstant(rs, "last_run_at"), rs.getInt("runs"), optionalInstant(rs, "claimed_until"),
                rs.getLong("version"), Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")));
    }

    private static Optional<Instant> optionalInstant(ResultSet rs, String column) throws SQLException {
        long micros = rs.getLong(column);
        return rs.wasNull() ? Optional.empty() : Optional.of(Columns.instant(micros));
    }

    @Override
    default void insertSchedule(Schedule s) {
        handle().createUpdate("""
                INSERT INTO schedules (id, user_id, agent_id, session_id, message, timing, status, next_run_at, last_run_at,
                                       runs, claimed_until, version, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""")
                .bind(0, s.id()).bind(1, s.scope().userId()).bind(2, s.scope().agentId()).bind(3, s.sessionId())
                .bind(4, s.message()).bind(5, Columns.timingJson(s.timing())).bind(6, s.status().name())
                .bind(7, Columns.micros(s.nextRunAt())).bind(8, Columns.micros(s.lastRunAt())).bind(9, s.runs())
                .bind(10, Columns.micros(s.claimedUntil())).bind(11, s.version()).bind(12, Columns.micros(s.createdAt()))
                .bind(13, Columns.micros(s.updatedAt())).execute();
    }

    @Override
    default Optional<Schedule> schedule(String userId, String id) {
        return handle().createQuery("SELECT * FROM schedules WHERE user_id = ? AND id = ?")
                .bind(0, userId).bind(1, id).map((rs, ctx) -> schedule(rs)).findOne();
    }

    @Override
    default List<Schedule> listSchedules(String userId) {
        return handle().createQuery("SELECT * FROM schedules WHERE user_id = ? ORDER BY created_at, id")
                .bind(0, userId).map((rs, ctx) -> schedule(rs)).list();
    }

    @Override
    default List<Schedule> dueSchedules(Instant now, int max) {
        long at = Columns.micros(now);
        return handle().createQuery("SELECT * FROM schedules WHERE status = 'ACTIVE' AND next_run_at <= ? "
                        + "AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY next_run_at, id LIMIT ?")
                .bind(0, at).bind(1, at).bind(2, max).map((rs, ctx) -> schedule(rs)).list();
    }

    @Override
    default boolean updateSchedule(Schedule s, long expectedVersion) {
        return handle().createUpdate("UPDATE schedules SET status = ?, next_run_at = ?, last_run_at = ?, runs = ?, claimed_until = ?, "
                        + "version = ?, updated_at = ? WHERE user_id = ? AND id = ? AND version = ?")
                .bind(0, s.status().name()).bind(1, Columns.micros(s.nextRunAt())).bind(2, Columns.micros(s.lastRunAt()))
                .bind(3, s.runs()).bind(4, Columns.micros(s.claimedUntil())).bind(5, s.version())
                .bind(6, Columns.micros(s.updatedAt())).bind(7, s.scope().userId()).bind(8, s.id()).bind(9, expectedVersion)
                .execute() > 0;
    }

    private static ApiKey key(ResultSet rs) throws SQLException {
        return new ApiKey(rs.getString("id"), Optional.ofNullable(rs.getString("user_id")), rs.getString("name"),
                Columns.instant(rs.getLong("created_at")));
    }

    @Override
    default void insertKey(ApiKey k, String hash) {
        handle().createUpdate("INSERT INTO api_keys (id, user_id, name, key_hash, created_at) VALUES (?, ?, ?, ?, ?)")
                .bind(0, k.id()).bind(1, k.userId().orElse(null)).bind(2, k.name()).bind(3, hash)
                .bind(4, Columns.micros(k.createdAt())).execute();
    }

    @Override
    default Optional<ApiKey> keyByHash(String hash) {
        return handle().createQuery("SELECT * FROM api_keys WHERE key_hash = ?").bind(0, hash).map((rs, ctx) -> key(rs)).findOne();
    }

    @Override
    default List<ApiKey> listKeys() {
        return handle().createQuery("SELECT * FROM api_keys ORDER BY created_at, id").map((rs, ctx) -> key(rs)).list();
    }

    @Override
    default boolean deleteKey(String id) {
        return handle().createUpdate("DELETE FROM api_keys WHERE id = ?").bind(0, id).execute() > 0;
    }

    private static Identity identity(ResultSet rs) throws SQLException {
        return new Identity(rs.getString("user_id"), rs.getString("name"), rs.getString("type"),
                Columns.instant(rs.getLong("created_at")), rs.getString("properties"));
    }

    @Override
    default void putIdentity(Identity i) {
        handle().createUpdate("INSERT INTO identities (user_id, name, type, created_at, properties) VALUES (?, ?, ?, ?, ?) "
                        + "ON CONFLICT (user_id) DO UPDATE SET name = excluded.name, type = excluded.type, "
                        + "properties = excluded.properties")
                .bind(0, i.userId()).bind(1, i.name()).bind(2, i.type()).bind(3, Columns.micros(i.createdAt()))
                .bind(4, i.properties()).execute();
    }

    @Override
    default Optional<Identity> identity(String userId) {
        return handle().createQuery("SELECT * FROM identities WHERE user_id = ?").bind(0, userId)
                .map((rs, ctx) -> identity(rs)).findOne();
    }

    @Override
    default List<Identity> listIdentities() {
        return handle().createQuery("SELECT * FROM identities ORDER BY created_at, user_id").map((rs, ctx) -> identity(rs)).list();
    }

    @Override
    default boolean deleteIdentity(String userId) {
        return handle().createUpdate("DELETE FROM identities WHERE user_id = ?").bind(0, userId).execute() > 0;
    }

    private static Conversation conversation(ResultSet rs) throws SQLException {
        return new Conversation(rs.getString("id"), rs.getString("user_id"), rs.getString("agent_id"), rs.getString("summary"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")),
                Metadata.parse(rs.getString("metadata")));
    }

    @Override
    default void putConversation(Conversation c) {
        handle().createUpdate("INSERT INTO conversations (id, user_id, agent_id, summary, created_at, updated_at, metadata) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET summary = excluded.summary, "
                        + "updated_at = excluded.updated_at, metadata = excluded.metadata")
                .bind(0, c.id()).bind(1, c.userId()).bind(2, c.agentId()).bind(3, c.summary())
                .bind(4, Columns.micros(c.createdAt())).bind(5, Columns.micros(c.updatedAt())).bind(6, c.metadata().json())
                .execute();
    }

    @Override
    default Optional<Conversation> conversation(String id) {
        return handle().createQuery("SELECT * FROM conversations WHERE id = ?").bind(0, id)
                .map((rs, ctx) -> conversation(rs)).findOne();
    }

    @Override
    default List<Conversation> listConversations(String userId) {
        return handle().createQuery("SELECT * FROM conversations WHERE user_id = ? ORDER BY created_at, id").bind(0, userId)
                .map((rs, ctx) -> conversation(rs)).list();
    }

    @Override
    default boolean deleteConversation(String id) {
        return handle().createUpdate("DELETE FROM conversations WHERE id = ?").bind(0, id).execute() > 0;
    }

    private static ProviderRecord providerRecord(ResultSet rs) throws SQLException {
        return new ProviderRecord(rs.getString("id"), rs.getString("name"), rs.getString("type"), rs.getString("base_url"),
                rs.getString("sealed_api_key"), Columns.instant(rs.getLong("created_at")),
                Columns.instant(rs.getLong("updated_at")));
    }

    @Override
    default void putProvider(ProviderRecord p) {
        handle().createUpdate("INSERT INTO providers (id, name, type, base_url, sealed_api_key, created_at, updated_at) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET base_url = excluded.base_url, "
                        + "sealed_api_key = excluded.sealed_api_key, updated_at = excluded.updated_at")
                .bind(0, p.id()).bind(1, p.name()).bind(2, p.type()).bind(3, p.baseUrl()).bind(4, p.sealedApiKey())
                .bind(5, Columns.micros(p.createdAt())).bind(6, Columns.micros(p.updatedAt())).execute();
    }

    @Override
    default Optional<ProviderRecord> provider(String id) {
        return handle().createQuery("SELECT * FROM providers WHERE id = ?").bind(0, id).map((rs, ctx) -> providerRecord(rs))
                .findOne();
    }

    @Override
    default List<ProviderRecord> listProviders() {
        return handle().createQuery("SELECT * FROM providers ORDER BY created_at, id").map((rs, ctx) -> providerRecord(rs))
                .list();
    }

    @Override
    default boolean deleteProvider(String id) {
        return handle().createUpdate("DELETE FROM providers WHERE id = ?").bind(0, id).execute() > 0;
    }

    private static McpServerRecord mcpServerRecord(ResultSet rs) throws SQLException {
        return new McpServerRecord(rs.getString("id"), rs.getString("user_id"), rs.getString("name"), rs.getString("type"),
                rs.getString("config"), rs.getString("sealed_secrets"), rs.getString("tools"),
                Columns.instant(rs.getLong("created_at")), Columns.instant(rs.getLong("updated_at")));
    }

    @Override
    default void putMcpServer(McpServerRecord s) {
        handle().createUpdate("INSERT INTO mcp_servers (id, user_id, name, type, config, sealed_secrets, tools, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        + "ON CONFLICT (id) DO UPDATE SET name = excluded.name, type = excluded.type, config = excluded.config, sealed_secrets = excluded.sealed_secrets, tools = excluded.tools, updated_at = excluded.updated_at")
                .bind(0, s.id()).bind(1, s.userId()).bind(2, s.name()).bind(3, s.type()).bind(4, s.config())
                .bind(5, s.sealedSecrets()).bind(6, s.tools()).bind(7, Columns.micros(s.createdAt()))
                .bind(8, Columns.micros(s.updatedAt())).execute();
    }

    @Override
    default Optional<McpServerRecord> mcpServer(String id) {
        return handle().createQuery("SELECT * FROM mcp_servers WHERE id = ?").bind(0, id)
                .map((rs, ctx) -> mcpServerRecord(rs)).findOne();
    }

    @Override
    default List<McpServerRecord> listMcpServers() {
        return handle().createQuery("SELECT * FROM mcp_servers ORDER BY created_at, id").map((rs, ctx) -> mcpServerRecord(rs))
                .list();
    }

    @Override
    default boolean deleteMcpServer(String id) {
        return handle().createUpdate("DELETE FROM mcp_servers WHERE id = ?").bind(0, id).execute() > 0;
    }

    private static CustomTool customToolRecord(ResultSet rs) throws SQLException {
        CustomToolSpec spec = new CustomToolSpec(rs.getString("name"), rs.getString("description"), rs.getString("source_type"),
                rs.getString("source_code"), rs.getString("json_schema"), rs.getString("args_json_schema"),
                Columns.tags(rs.getString("tags")), rs.getInt("return_char_limit"), rs.getString("pip_requirements"),
                rs.getString("npm_requirements"), rs.getInt("default_requires_approval") != 0, rs.getString("metadata"));
        return new CustomTool(rs.getString("id"), rs.getString("user_id"), spec, Columns.instant(rs.getLong("created_at")),
                Columns.instant(rs.getLong("updated_at")));
    }

    @Override
    default void putCustomTool(CustomTool t) {
        CustomToolSpec s = t.spec();
        handle().createUpdate("INSERT INTO custom_tools (id, user_id, name, description, source_type, source_code, json_schema, "
                        + "args_json_schema, tags, return_char_limit, pip_requirements, npm_requirements, default_requires_approval, "
                        + "metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) "
                        + "DO UPDATE SET name = excluded.name, description = excluded.description, source_type = excluded.source_type, "
                        + "source_code = excluded.source_code, json_schema = excluded.json_schema, args_json_schema = "
                        + "excluded.args_json_schema, tags = excluded.tags, return_char_limit = excluded.return_char_limit, "
                        + "pip_requirements = excluded.pip_requirements, npm_requirements = excluded.npm_requirements, "
                        + "default_requires_approval = excluded.default_requires_approval, metadata = excluded.metadata, "
                        + "updated_at = excluded.updated_at")
                .bind(0, t.id()).bind(1, t.userId()).bind(2, s.name()).bind(3, s.description()).bind(4, s.sourceType())
                .bind(5, s.sourceCode()).bind(6, s.jsonSchema()).bind(7, s.argsJsonSchema()).bind(8, Columns.tagsJson(s.tags()))
                .bind(9, s.returnCharLimit()).bind(10, s.pipRequirements()).bind(11, s.npmRequirements())
                .bind(12, s.defaultRequiresApproval() ? 1 : 0).bind(13, s.metadata()).bind(14, Columns.micros(t.createdAt()))
                .bind(15, Columns.micros(t.updatedAt())).execute();
    }

    @Override
    default Optional<CustomTool> customTool(String id) {
        return handle().createQuery("SELECT * FROM custom_tools WHERE id = ?").bind(0, id)
                .map((rs, ctx) -> customToolRecord(rs)).findOne();
    }

    @Override
    default List<CustomTool> listCustomTools(String userId) {
        return handle().createQuery("SELECT * FROM custom_tools WHERE user_id = ? ORDER BY created_at, id").bind(0, userId)
                .map((rs, ctx) -> customToolRecord(rs)).list();
    }

    @Override
    default boolean deleteCustomTool(String id) {
        return handle().createUpdate("DELETE FROM custom_tools WHERE id = ?").bind(0, id).execute() > 0;
    }
}
