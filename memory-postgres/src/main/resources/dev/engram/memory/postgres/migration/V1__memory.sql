-- Engram memory schema on PostgreSQL, version 1: the tables of SQLite's V1 to V5 in one step.

CREATE TABLE blocks (
    id BIGSERIAL PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, label TEXT NOT NULL,
    description TEXT NOT NULL, value TEXT NOT NULL, char_limit INTEGER NOT NULL, type TEXT NOT NULL,
    permission TEXT NOT NULL, pinned BOOLEAN NOT NULL, version BIGINT NOT NULL,
    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, UNIQUE (user_id, agent_id, label));
CREATE TABLE block_versions (
    block_id BIGINT NOT NULL REFERENCES blocks (id) ON DELETE CASCADE, version BIGINT NOT NULL,
    value TEXT NOT NULL, operation TEXT NOT NULL, committed_at BIGINT NOT NULL, PRIMARY KEY (block_id, version));
CREATE TABLE block_shares (
    block_id BIGINT NOT NULL REFERENCES blocks (id) ON DELETE CASCADE, user_id TEXT NOT NULL,
    agent_id TEXT NOT NULL, permission TEXT NOT NULL, PRIMARY KEY (block_id, agent_id));
CREATE TABLE archival (
    pos BIGSERIAL UNIQUE, id TEXT PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, label TEXT,
    content TEXT NOT NULL, tags TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
CREATE UNIQUE INDEX archival_label ON archival (user_id, agent_id, label) WHERE label IS NOT NULL;
CREATE TABLE notes (
    pos BIGSERIAL UNIQUE, id TEXT PRIMARY KEY, user_id TEXT NOT NULL, content TEXT NOT NULL,
    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
CREATE TABLE messages (
    id BIGSERIAL PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, session_id TEXT NOT NULL,
    role TEXT NOT NULL, content TEXT NOT NULL, tool_calls TEXT, tool_call_id TEXT,
    created_at BIGINT NOT NULL, in_context BOOLEAN NOT NULL);
CREATE INDEX messages_scope ON messages (user_id, agent_id, id);
CREATE INDEX messages_in_context ON messages (user_id, agent_id, id) WHERE in_context;
CREATE TABLE changes (
    seq BIGSERIAL PRIMARY KEY, entity TEXT NOT NULL, entity_id TEXT NOT NULL, op TEXT NOT NULL,
    user_id TEXT NOT NULL, agent_id TEXT);
CREATE TABLE agents (
    user_id TEXT NOT NULL, agent_id TEXT NOT NULL, name TEXT NOT NULL, definition TEXT NOT NULL,
    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (user_id, agent_id), UNIQUE (user_id, name));
CREATE TABLE schedules (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, session_id TEXT NOT NULL,
    message TEXT NOT NULL, timing TEXT NOT NULL, status TEXT NOT NULL, next_run_at BIGINT, last_run_at BIGINT,
    runs INTEGER NOT NULL, claimed_until BIGINT, version BIGINT NOT NULL,
    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
CREATE INDEX schedules_user ON schedules (user_id);
CREATE INDEX schedules_due ON schedules (next_run_at) WHERE status = 'ACTIVE';
CREATE TABLE store_identity (id TEXT NOT NULL);
INSERT INTO store_identity (id) VALUES (md5(random()::text || clock_timestamp()::text));
