-- Engram memory schema on PostgreSQL, version 15: background jobs (SQLite's V17), each stored with its input when it
-- is accepted, so that a job a crash interrupted is found again at the next start and resumed or failed, never lost.

CREATE TABLE jobs (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, agent_id TEXT, kind TEXT NOT NULL, status TEXT NOT NULL,
    input TEXT NOT NULL, result TEXT NOT NULL, error TEXT NOT NULL, attempts INTEGER NOT NULL, created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL, completed_at BIGINT);
CREATE INDEX jobs_by_user ON jobs (user_id, created_at);
CREATE INDEX jobs_active ON jobs (status, created_at) WHERE completed_at IS NULL;
