-- Engram memory schema on PostgreSQL, version 20: archives (SQLite's V22), named collections of passages a user keeps
-- and attaches to several of the user's agents. An archive's passages are archival rows whose agent_id is its id.

CREATE TABLE archives (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, description TEXT NOT NULL,
    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
CREATE INDEX archives_by_user ON archives (user_id, created_at);

CREATE TABLE archive_agents (archive_id TEXT NOT NULL REFERENCES archives (id) ON DELETE CASCADE, user_id TEXT NOT NULL,
    agent_id TEXT NOT NULL, created_at BIGINT NOT NULL, seq BIGSERIAL NOT NULL, PRIMARY KEY (archive_id, agent_id));
CREATE INDEX archive_agents_by_agent ON archive_agents (user_id, agent_id, seq);
