-- Engram memory schema on PostgreSQL, version 5: conversations (SQLite's V8).

CREATE TABLE conversations (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, summary TEXT NOT NULL,
    created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL);
CREATE INDEX conversations_by_user ON conversations (user_id, created_at);
